"""The package's one exception type, importable without pyspark."""


class SparkBloomError(RuntimeError):
    """sparkbloom cannot be used here: jars missing, the Spark version unknown, an unsupported
    session kind."""
