import io.trino.sql.parser.ParsingException;
import io.trino.sql.parser.SqlParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Parses each `<name>.sql` of the folder given with Trino's own SQL parser (Athena engine
 * version 3 is Trino), one line a statement, `ok <name>` or `FAIL <name>: <line:column> <why>`
 * with the text around the fault, and ends with `N passed, N failed`. A parse checks the syntax
 * only: names of tables, columns and functions are Athena's to check when the query runs.
 */
public final class ParseAthenaSql {
    public static void main(String[] args) throws IOException {
        List<Path> files;
        try (Stream<Path> listed = Files.list(Path.of(args[0]))) {
            files = listed.filter(path -> path.toString().endsWith(".sql")).sorted().toList();
        }
        SqlParser parser = new SqlParser();
        int passed = 0;
        int failed = 0;
        for (Path file : files) {
            String name = file.getFileName().toString().replaceFirst("\\.sql$", "");
            String sql = Files.readString(file);
            try {
                parser.createStatement(sql);
                System.out.println("ok " + name);
                passed++;
            } catch (ParsingException e) {
                System.out.println("FAIL " + name + ": " + e.getLineNumber() + ":" + e.getColumnNumber()
                        + " " + e.getErrorMessage() + "\n    " + lineOf(sql, e.getLineNumber()));
                failed++;
            }
        }
        if (files.isEmpty()) failed++;
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    private static String lineOf(String sql, int number) {
        String[] lines = sql.split("\n", -1);
        return number >= 1 && number <= lines.length ? lines[number - 1].strip() : "";
    }
}
