"""A local Spark session for the `aasa_spark` tests, and the `aasa` binary they ship."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
REPOSITORY = HERE.parents[2]
sys.path.insert(0, str(HERE.parent))


@pytest.fixture(scope="session")
def aasa() -> str:
    """The release binary `make spark-test` builds (or `AASA_BINARY`)."""
    path = os.environ.get("AASA_BINARY", str(REPOSITORY / ".build" / "release" / "aasa"))
    assert os.access(path, os.X_OK), f"no aasa binary at {path}: build it (make spark-test does)"
    return path


@pytest.fixture(scope="session")
def spark():
    from pyspark.sql import SparkSession

    # The Python workers must run this interpreter, the one with pyspark installed.
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    quiet = f"-Dlog4j2.configurationFile=file:{HERE / 'log4j2.properties'}"
    session = (
        SparkSession.builder.master("local[2]")
        .appName("aasa-spark-test")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.driver.extraJavaOptions", quiet)
        .config("spark.executor.extraJavaOptions", quiet)
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()
