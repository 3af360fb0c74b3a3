#!/usr/bin/env python3
"""moto_server with its Step Functions interpreter on, for tests of
infra/statemachine.asl.json (internal/sfn). Arguments are moto_server's
(-H 127.0.0.1 -p PORT). The interpreter sends lambda:invoke to
http://localhost:$MOTO_PORT; moto keeps a MOTO_PORT that is set, so
MOTO_PORT=<X> sends them to a test's own Invoke API on port X.

Work-around for a moto 5.2.1 defect: after the first execution in a process,
every later StartExecution fails with "cannot pickle '_thread.RLock'"
(getmoto/moto#10077): StartExecution deep-copies the state machine, and the
copy reaches running executions (which hold locks) through its `backend` and
its own `executions`. The copy here shares those two instead of copying
them; the execution only needs the definition and settings at its start.
"""
import copy
import sys

from moto.core.config import default_user_config

default_user_config.setdefault("stepfunctions", {})["execute_state_machine"] = True

from moto.stepfunctions.models import StateMachine  # noqa: E402


def _deepcopy_sharing_backend(self, memo):
    clone = self.__class__.__new__(self.__class__)
    memo[id(self)] = clone
    for name, value in self.__dict__.items():
        shared = name in ("backend", "executions")
        setattr(clone, name, value if shared else copy.deepcopy(value, memo))
    return clone


StateMachine.__deepcopy__ = _deepcopy_sharing_backend

# A second work-around, for speed only: moto's TransactWriteItems, to undo a
# cancelled transaction, takes a deep copy of the whole table, once for every
# item of the transaction; an import of 10 000 rows (100-item transactions
# into a table that grows to 30 000 items) then takes hours. The snapshot
# here is the same table as far as an undo can tell: the partitions the
# transaction touches are deep-copied (it may change their items in place),
# the others are shared (it leaves them alone), and it is taken once per
# transaction.
import threading  # noqa: E402
from collections import defaultdict  # noqa: E402

import moto.dynamodb.models as dynamodb_models  # noqa: E402


class _Snapshots(threading.local):
    touched = None  # partition key values the running transaction names
    taken = None  # id(table) -> snapshot

    def deepcopy(self, value, memo=None):
        if self.touched is None or not isinstance(value, dynamodb_models.Table):
            return copy.deepcopy(value, memo)
        if id(value) not in self.taken:
            self.taken[id(value)] = _snapshot(value, self.touched)
        return self.taken[id(value)]

    def __getattr__(self, name):
        return getattr(copy, name)


def _snapshot(table, touched):
    snap = copy.copy(table)
    snap.items = defaultdict(dict)
    for hash_key, value in table.items.items():
        if getattr(hash_key, "value", None) in touched:
            snap.items[hash_key] = copy.deepcopy(value)
        else:
            snap.items[hash_key] = dict(value) if table.has_range_key else value
    return snap


def _partition_keys(transact_items):
    keys = set()
    for entry in transact_items:
        for op in entry.values():
            for part in (op.get("Key") or {}, op.get("Item") or {}):
                for attr in part.values():
                    if isinstance(attr, dict):
                        keys.update(v for v in attr.values() if isinstance(v, str))
    return keys


_snapshots = _Snapshots()
dynamodb_models.copy = _snapshots
_transact_write_items = dynamodb_models.DynamoDBBackend.transact_write_items


def _transact_write_items_with_cheap_undo(self, transact_items):
    _snapshots.touched, _snapshots.taken = _partition_keys(transact_items), {}
    try:
        return _transact_write_items(self, transact_items)
    finally:
        _snapshots.touched = _snapshots.taken = None


dynamodb_models.DynamoDBBackend.transact_write_items = _transact_write_items_with_cheap_undo

from moto.server import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
