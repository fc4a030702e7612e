"""The package's exception types, importable without pyspark."""


class SparkBloomError(RuntimeError):
    """sparkbloom cannot be used here: jars missing, the Spark version unknown, an unsupported
    session kind."""


class JarsNotFoundError(SparkBloomError, FileNotFoundError):
    """sparkbloom's jars are not where :func:`sparkbloom.jars` looks: a :class:`SparkBloomError`,
    and a ``FileNotFoundError`` (what Python raises for a missing file) for code catching that."""
