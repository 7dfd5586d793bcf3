"""What every metric shares: matching run ids in Arrow equals pandas' isin."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from ambiglib.metrics._common import _isin

_TEXT_DTYPES = {"str": "str", "arrow string": pd.ArrowDtype(pa.string()),
                "arrow large_string": pd.ArrowDtype(pa.large_string()), "object": object}


@pytest.mark.parametrize("column_dtype", list(_TEXT_DTYPES))
@pytest.mark.parametrize("values", [
    ["r1", None], [np.nan], [1, "r2"], set(), {"r3"}, ["r9"],
    pd.Series(["r2", None], dtype=object), pd.Series(["r2", "r1"], dtype="str"),
    pd.Series(["r3", None], dtype=pd.ArrowDtype(pa.string())),
    pd.Series(["r3"], dtype=pd.ArrowDtype(pa.large_string())),
], ids=lambda v: repr(list(v)) + (f" {v.dtype}" if isinstance(v, pd.Series) else ""))
def test_isin_is_pandas_isin(column_dtype, values):
    """The metrics match run ids in Arrow where both sides are text (``metrics._isin``): the same answer as
    pandas' ``isin`` for every dtype and kind of value, nulls included, on the column's own index."""
    column = pd.Series(["r1", None, "r2", "r3", "r1"], dtype=_TEXT_DTYPES[column_dtype], index=[5, 3, 9, 0, 2])
    try:
        theirs = column.isin(values)
    except pa.ArrowInvalid:  # numbers against an Arrow string column: refused alike
        with pytest.raises(pa.ArrowInvalid):
            _isin(column, values)
        return
    except pa.ArrowTypeError:  # pandas cannot match only nulls against an Arrow string column; null matches null
        assert column_dtype.startswith("arrow") and list(pd.Series(list(values), dtype=object).dropna()) == []
        assert _isin(column, values).tolist() == column.isna().tolist()
        return
    ours = _isin(column, values)
    assert ours.dtype == bool and ours.index.equals(column.index)
    assert ours.tolist() == theirs.tolist()
