"""The type of :func:`dupack.estimate`'s answer, :class:`Estimate`.

It lives apart from :mod:`dupack.api`, which hands it out (``dupack.api.Estimate``),
because a named tuple needs the collections package: a millisecond of start-up
that ``dupack run``, which never estimates, need not pay.
"""

from __future__ import annotations

# typing for type checkers only (why: dupack/__init__.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple

    class _EstimateFields(NamedTuple):
        wall_s: float
        events: float
        packets: float

else:
    from collections import namedtuple

    # The same tuple, without typing.NamedTuple.
    _EstimateFields = namedtuple("Estimate", ["wall_s", "events", "packets"])


class Estimate(_EstimateFields):
    """What running a scenario will cost, estimated from the scenario alone
    (:func:`dupack.estimate`): on the high side for links that are kept busy,
    and well above for runs that spend their time in timeouts.

    Fields: ``wall_s``, wall-clock seconds at a conservative pace of events
    per second; ``events``, the events the run would process; ``packets``,
    the data packets all flows together could send."""

    __slots__ = ()


# Where users meet it, and where pickle finds it.
Estimate.__module__ = "dupack.api"
