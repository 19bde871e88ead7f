"""Former path of ``CompiledBook``, kept as a re-export: it lives in ``compiled.book``."""

from sekai.finance.lob.compiled.book import CompiledBook as CompiledBook

__all__ = ["CompiledBook"]
