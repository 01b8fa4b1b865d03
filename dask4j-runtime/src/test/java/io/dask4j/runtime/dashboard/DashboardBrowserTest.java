package io.dask4j.runtime.dashboard;

import io.dask4j.runtime.client.Client;
import io.dask4j.runtime.client.DaskFuture;
import io.dask4j.runtime.client.TaskGraph;
import io.dask4j.runtime.cluster.LocalCluster;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A real browser (Debian's headless chromium, driven through /usr/bin/chromedriver by Selenium) opens the
 * dashboard while a computation runs and checks that every view renders and updates; it saves a
 * screenshot as {@code <build dir>/surefire-reports/dashboard.png}. Skips when chromium or chromedriver
 * is missing, unless {@code DASK4J_REQUIRE_BROWSER=1} (CI), which makes that a failure. Selenium Manager
 * never runs: the driver and browser paths are given explicitly, so nothing is downloaded.
 */
@Timeout(180)
class DashboardBrowserTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    static int work(int x) {
        try {
            Thread.sleep(3 + x % 5);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return x;
    }

    @Test
    void everyViewRendersAndUpdatesWhileAComputationRuns(@TempDir Path profile) throws Exception {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present && "1".equals(System.getenv("DASK4J_REQUIRE_BROWSER"))) {
            throw new AssertionError("DASK4J_REQUIRE_BROWSER=1 but " + CHROMIUM + " or " + CHROMEDRIVER
                    + " is missing (apt-get install chromium chromium-driver)");
        }
        Assumptions.assumeTrue(present, "no chromium/chromedriver installed; skipping the browser test");

        AtomicBoolean running = new AtomicBoolean(true);
        try (LocalCluster cluster = LocalCluster.builder().workers(2).threadsPerWorker(2).dashboardAddress("127.0.0.1:0").start();
             Client client = cluster.client()) {
            URI base = cluster.dashboardUrl().orElseThrow();
            Thread load = Thread.ofPlatform().daemon().name("browser-test-load").start(() -> keepBusy(client, running));
            WebDriver driver = startBrowser(profile);
            try {
                driver.get(base.toString());
                // The page re-renders its views every second, so an element found a moment ago may be gone:
                // every read goes through the wait, which retries on a stale element.
                WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(60), Duration.ofMillis(100));
                wait.ignoring(StaleElementReferenceException.class);
                wait.until(d -> text(d, "stat-workers").equals("2"));
                assertThat(driver.getTitle()).isEqualTo("dask4j dashboard");
                String threads = wait.until(d -> text(d, "stat-threads"));
                assertThat(threads).isEqualTo("4");

                long completed = wait.until(d -> number(text(d, "stat-completed")));
                wait.until(d -> number(text(d, "stat-completed")) > completed);

                wait.until(d -> !d.findElements(By.cssSelector("#progress .group-row[data-group='load']")).isEmpty());
                long groupDone = wait.until(d -> Long.parseLong(
                        attribute(d, "#progress .group-row[data-group='load']", "data-completed")));
                wait.until(d -> Long.parseLong(attribute(d, "#progress .group-row[data-group='load']", "data-completed")) > groupDone);
                String groupDoneText = wait.until(d -> d.findElement(By.cssSelector("#progress .group-row[data-group='load'] .group-done")).getText());
                assertThat(groupDoneText)
                        .matches("[0-9,]+ / [0-9,]+.*");

                wait.until(d -> Integer.parseInt(attribute(d, "#task-stream", "data-rects")) > 0);

                wait.until(d -> d.findElements(By.cssSelector("#workers tbody tr.worker-row")).size() == 2);
                String firstWorker = wait.until(d -> d.findElements(By.cssSelector("#workers tbody tr.worker-row")).getFirst().getText());
                assertThat(firstWorker).contains("worker-");

                wait.until(d -> !d.findElements(By.cssSelector("#traffic .transport-row[data-transport='inproc']")).isEmpty());
                String before = wait.until(d -> d.findElement(By.cssSelector("#traffic .transport-row[data-transport='inproc']")).getText());
                wait.until(d -> !d.findElement(By.cssSelector("#traffic .transport-row[data-transport='inproc']")).getText().equals(before));

                String status = wait.until(d -> text(d, "status"));
                assertThat(status).startsWith("live");
                Path shot = buildDirectory().resolve("surefire-reports").resolve("dashboard.png");
                Files.createDirectories(shot.getParent());
                Files.write(shot, ((TakesScreenshot) driver).getScreenshotAs(OutputType.BYTES));
                assertThat(Files.size(shot)).isPositive();
            } finally {
                driver.quit();
                running.set(false);
                load.join(30_000);
            }
        }
    }

    /** Submits waves of small tasks (a "load" layer and a dependent "process" layer) until told to stop. */
    private static void keepBusy(Client client, AtomicBoolean running) {
        int wave = 0;
        while (running.get() && wave < 200) {
            TaskGraph g = new TaskGraph();
            List<String> outs = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                String leaf = "load-" + wave + "-" + i;
                g.add(leaf, (Integer x) -> work(x), i);
                if (i % 2 == 1) {
                    String p = "process-" + wave + "-" + i;
                    g.add(p, (Integer a, Integer b) -> work(a + b), TaskGraph.ref("load-" + wave + "-" + (i - 1)), TaskGraph.ref(leaf));
                    outs.add(p);
                }
            }
            Map<String, DaskFuture<Object>> futures = client.persist(g, outs.toArray(String[]::new));
            client.gather(futures.values());
            futures.values().forEach(DaskFuture::release);
            wave++;
        }
    }

    /** A headless Chromium whose profile lives in {@code profile} (a JUnit temporary directory, removed afterwards). */
    private static WebDriver startBrowser(Path profile) {
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile()).usingAnyFreePort().build();
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--window-size=1400,1200", "--user-data-dir=" + profile);
        return new ChromeDriver(service, options);
    }

    private static String text(WebDriver d, String id) {
        return d.findElement(By.id(id)).getText().strip();
    }

    private static String attribute(WebDriver d, String css, String name) {
        String v = d.findElement(By.cssSelector(css)).getDomAttribute(name);
        return v == null ? "0" : v;
    }

    private static long number(String text) {
        String digits = text.replace(",", "");
        return digits.matches("[0-9]+") ? Long.parseLong(digits) : -1;
    }

    /** The module's build directory (target/ or -Ddask4j.build.dir), found from where the test classes are. */
    private static Path buildDirectory() throws URISyntaxException {
        File classes = new File(DashboardBrowserTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return classes.toPath().getParent();
    }
}
