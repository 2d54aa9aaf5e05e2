"""unosim: a UNO rules-variant simulator and statistics toolkit."""

__version__ = "0.1.0"
