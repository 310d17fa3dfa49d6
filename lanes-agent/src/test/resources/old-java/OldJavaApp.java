import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/** An application for an older Java, run from source by that Java (OldJavaAgentTest). */
public class OldJavaApp {
  public static void main(String[] args) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    int sum = pool.submit(() -> 20 + 22).get();
    pool.shutdown();
    pool.awaitTermination(10, TimeUnit.SECONDS);
    System.out.println("the application ran to its end on Java "
        + System.getProperty("java.specification.version") + ": " + sum);
    System.exit(3);
  }
}
