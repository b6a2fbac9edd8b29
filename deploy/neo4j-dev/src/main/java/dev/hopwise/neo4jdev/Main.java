package dev.hopwise.neo4jdev;

import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.io.ByteUnit;
import org.neo4j.logging.Level;
import org.neo4j.logging.log4j.Log4jLogProvider;

/**
 * Starts an embedded Neo4j 5 Community DBMS with Bolt on, auth off and small memory, for development
 * only. It prints {@link #READY} once the default database answers Cypher and the procedures Hopwise's
 * store needs are registered; start.sh waits for that line. SIGTERM shuts the DBMS down cleanly.
 */
public final class Main {

    static final String READY = "neo4j-dev: ready on ";

    /** Procedures the Hopwise Neo4j store calls; a classpath without them is a broken launcher. */
    private static final List<String> REQUIRED_PROCEDURES =
            List.of("db.index.vector.queryNodes", "db.index.fulltext.queryNodes");

    private Main() {}

    public static void main(String[] args) {
        Options opts;
        try {
            opts = Options.parse(args, System.getenv());
        } catch (IllegalArgumentException e) {
            System.err.println("neo4j-dev: " + e.getMessage());
            System.exit(2);
            return;
        }
        try {
            run(opts);
        } catch (Exception e) {
            System.err.println("neo4j-dev: failed: " + e);
            e.printStackTrace();
            System.exit(1);
        }
    }

    private static void run(Options opts) throws Exception {
        Files.createDirectories(opts.home());
        System.out.printf("neo4j-dev: starting Neo4j (home %s, data %s, bolt %s)%n",
                opts.home(), opts.data(), opts.boltUri());

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(opts.home())
                .setConfig(settings(opts))
                .setUserLogProvider(new Log4jLogProvider(System.out, Level.INFO))
                .build();

        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("neo4j-dev: shutting down");
            dbms.shutdown();
            System.out.println("neo4j-dev: stopped");
            System.out.flush();
            stopped.countDown();
        }, "neo4j-dev-shutdown"));

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        if (!db.isAvailable(Duration.ofMinutes(3).toMillis())) {
            throw new IllegalStateException("database " + db.databaseName() + " did not become available");
        }
        checkProcedures(db);
        System.out.println(READY + opts.boltUri());
        System.out.flush();
        stopped.await();
    }

    private static Map<org.neo4j.graphdb.config.Setting<?>, Object> settings(Options opts) {
        return Map.ofEntries(
                Map.entry(GraphDatabaseSettings.data_directory, opts.data()),
                Map.entry(GraphDatabaseSettings.logs_directory, opts.home().resolve("logs")),
                Map.entry(GraphDatabaseSettings.auth_enabled, false),
                Map.entry(GraphDatabaseSettings.udc_enabled, false),
                Map.entry(GraphDatabaseSettings.pagecache_memory, ByteUnit.mebiBytes(opts.pageCacheMiB())),
                // Small, lazily grown transaction logs: this store holds dev data only.
                Map.entry(GraphDatabaseSettings.preallocate_logical_logs, false),
                Map.entry(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(32)),
                Map.entry(GraphDatabaseSettings.keep_logical_logs, "128M size"),
                Map.entry(BoltConnector.enabled, true),
                Map.entry(BoltConnector.listen_address, new SocketAddress(opts.host(), opts.port())),
                Map.entry(BoltConnector.advertised_address, new SocketAddress(opts.host(), opts.port())),
                // Bolt waits 5 s twice on shutdown by default; a dev server has no in-flight work worth it.
                Map.entry(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofSeconds(1)),
                Map.entry(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofSeconds(1)));
    }

    private static void checkProcedures(GraphDatabaseService db) {
        List<String> found = db.executeTransactionally(
                "SHOW PROCEDURES YIELD name WHERE name IN $names RETURN name",
                Map.of("names", REQUIRED_PROCEDURES),
                result -> result.stream().map(row -> (String) row.get("name")).toList());
        for (String name : REQUIRED_PROCEDURES) {
            if (!found.contains(name)) {
                throw new IllegalStateException("procedure " + name + " is not registered: check the classpath");
            }
        }
    }
}
