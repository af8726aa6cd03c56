"""BLANC (Lita, Rogati & Lavie 2005): ACS and a trainable MT metric."""
from .metric import BLANC, BLANCParams, BLANCScore

__all__ = ["BLANC", "BLANCParams", "BLANCScore"]
