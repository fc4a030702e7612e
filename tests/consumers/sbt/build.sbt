// A consumer of the installed artifacts, as a user's sbt build would be: sparkbloom-spark with %%
// (so _2.12 or _2.13 by the Scala version), Spark for that Scala, and the per-user dedup
// pipeline (examples/jvm/scala/PerUserDedup.scala) compiled and run on local Spark.
// scripts/test-sbt-consumer.sh passes the versions read from jvm/pom.xml and runs `+run`.
val sparkbloomVersion = sys.props.getOrElse("sparkbloom.version", "0.1.0-SNAPSHOT")
// Spark 3.5.9's Scala 2.12.18; 2.13.18 for Spark 4.1.3, whose dependencies pull scala-library
// 2.13.18 (sbt wants a compiler no older than the library)
val scala212 = sys.props.getOrElse("consumer.scala212", "2.12.18")
val scala213 = sys.props.getOrElse("consumer.scala213", "2.13.18")
val sparkFor = Map(
  "2.12" -> sys.props.getOrElse("consumer.spark212", "3.5.9"),
  "2.13" -> sys.props.getOrElse("consumer.spark213", "4.1.3"))

// which sparkbloom jars %% resolved to, for the script to check the Scala suffix
val showSparkbloomJars = taskKey[Unit]("prints the sparkbloom jars on the compile classpath")

lazy val root = (project in file("."))
  .settings(
    name := "sparkbloom-sbt-consumer",
    scalaVersion := scala213,
    crossScalaVersions := Seq(scala212, scala213),
    // Until sparkbloom is published, a user adds `resolvers += Resolver.mavenLocal`. Here the
    // script copies the installed io/sparkbloom tree out of ~/.m2 into a repository of its own
    // (sparkbloom.repo): a shared ~/.m2 holds poms whose jars Maven never fetched, which
    // coursier takes as final for Spark's dependencies.
    resolvers += sys.props.get("sparkbloom.repo")
      .map(dir => "sparkbloom-installed" at file(dir).toURI.toString)
      .getOrElse(Resolver.mavenLocal),
    libraryDependencies ++= Seq(
      "io.sparkbloom" %% "sparkbloom-spark" % sparkbloomVersion,
      "org.apache.spark" %% "spark-sql" % sparkFor(scalaBinaryVersion.value)),
    // the example itself, not a copy of it
    Compile / unmanagedSourceDirectories +=
      baseDirectory.value / ".." / ".." / ".." / "examples" / "jvm" / "scala",
    run / fork := true,
    // Spark on Java 17 (org.apache.spark.launcher.JavaModuleOptions)
    run / javaOptions ++= Seq(
      "-Xmx1g", "-Dspark.ui.enabled=false", "-Dspark.driver.host=127.0.0.1",
      "-Dspark.driver.bindAddress=127.0.0.1",
      "-Dlog4j2.configurationFile=" +
        (baseDirectory.value / ".." / ".." / ".." / "jvm" / "sparkbloom-spark" / "conf" / "log4j2.properties"),
      "-XX:+IgnoreUnrecognizedVMOptions", "--add-opens=java.base/java.lang=ALL-UNNAMED",
      "--add-opens=java.base/java.lang.invoke=ALL-UNNAMED", "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
      "--add-opens=java.base/java.io=ALL-UNNAMED", "--add-opens=java.base/java.net=ALL-UNNAMED",
      "--add-opens=java.base/java.nio=ALL-UNNAMED", "--add-opens=java.base/java.util=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
      "--add-opens=java.base/java.util.concurrent.atomic=ALL-UNNAMED",
      "--add-opens=java.base/jdk.internal.ref=ALL-UNNAMED", "--add-opens=java.base/sun.nio.ch=ALL-UNNAMED",
      "--add-opens=java.base/sun.nio.cs=ALL-UNNAMED", "--add-opens=java.base/sun.security.action=ALL-UNNAMED",
      "--add-opens=java.base/sun.util.calendar=ALL-UNNAMED", "-Djdk.reflect.useDirectMethodHandle=false",
      "-Dio.netty.tryReflectionSetAccessible=true"),
    run / outputStrategy := Some(StdoutOutput),
    showSparkbloomJars := (Compile / dependencyClasspath).value.map(_.data.getName)
      .filter(_.startsWith("sparkbloom")).sorted.foreach(jar => println("resolved: " + jar))
  )
