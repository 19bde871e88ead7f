"""The former path of ``sekai.finance.charts``, the market charts."""

from sekai.finance.charts import Fills as Fills
from sekai.finance.charts import OrderBookChart as OrderBookChart
from sekai.finance.charts import Owners as Owners
from sekai.finance.charts import PriceChart as PriceChart
from sekai.finance.charts import UniverseChart as UniverseChart

__all__ = ["PriceChart", "OrderBookChart", "UniverseChart"]
