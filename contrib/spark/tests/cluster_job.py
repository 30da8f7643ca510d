"""`aasa_spark.classify` on a `local-cluster` master: a standalone master and worker whose
executors are separate JVMs, each with its own directory for shipped files, as on a real
cluster. Run by `test_aasa_spark.py` in a process of its own (one SparkContext per process).

Usage: cluster_job.py BINARY COMPILED RULES_DIR URLS_FILE; prints one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pyspark import SparkFiles  # noqa: E402
from pyspark.sql import SparkSession  # noqa: E402

from aasa_spark import classify  # noqa: E402


def main(binary: str, compiled: str, rules: str, urls_file: str) -> None:
    quiet = f"-Dlog4j2.configurationFile=file:{Path(__file__).resolve().parent / 'log4j2.properties'}"
    spark = (
        SparkSession.builder.master("local-cluster[1,1,1024]")
        .appName("aasa-spark-cluster-test")
        .config("spark.executor.memory", "512m")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.driver.extraJavaOptions", quiet)
        .config("spark.executor.extraJavaOptions", quiet)
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    urls = Path(urls_file).read_text().splitlines()
    df = spark.createDataFrame([(n, url) for n, url in enumerate(urls)], "n long, link string").repartition(2)
    rows = classify(df, "link", binary=binary, compiled=compiled, engine="pipe").collect()
    rows_inprocess = classify(df, "link", compiled=compiled, engine="inprocess").collect()
    executor_root = spark.sparkContext.parallelize([0], 1).map(lambda _: SparkFiles.getRootDirectory()).collect()[0]
    try:
        classify(df, "link", binary=binary, rules=rules).collect()
        rules_refusal = None
    except Exception as error:  # noqa: BLE001 - its message is the result
        rules_refusal = str(error)[:2000]
    print(
        json.dumps(
            {
                "rows": [row.asDict(recursive=True) for row in rows],
                "rows_inprocess": [row.asDict(recursive=True) for row in rows_inprocess],
                "driver_root": SparkFiles.getRootDirectory(),
                "executor_root": executor_root,
                "rules_refusal": rules_refusal,
            }
        )
    )
    spark.stop()


if __name__ == "__main__":
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    main(*sys.argv[1:5])
