// Passes a number from one process to the next, each in a sandbox of its own, through the
// counter that numbers the inodes of a process's own files in /proc (and the machine's pipes
// and sockets): each entry of /proc/self/fd looked up anew takes the next number.
//
// __MODE__ "mark" (the first seating): looks entries up anew until the last one's number is
// __KEY__ modulo 97. "read" (the second): looks them up once. Both say on stderr, as one JSON
// line, what they read (the number modulo 97, or why they could not) and how many times they
// looked; then play.
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

public class ProcFiles {
    private static final String MODE = "__MODE__";
    private static final long KEY = __KEY__;
    private static final long MODULUS = 97;
    private static boolean done = false;

    // the highest number among /proc/self/fd's entries, one of them new (a channel opened)
    private static long number() throws Exception {
        long seen = 0;
        List<Path> entries = new ArrayList<>();
        try (FileChannel channel = FileChannel.open(Path.of("/dev/null"))) {
            try (DirectoryStream<Path> listed = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
                for (Path entry : listed) {
                    entries.add(entry);
                    try {
                        seen = Math.max(seen, (Long) Files.getAttribute(entry, "unix:ino", LinkOption.NOFOLLOW_LINKS));
                    } catch (NoSuchFileException gone) {
                        // (the listing's own descriptor)
                    }
                }
            }
        }
        for (Path entry : entries) {
            Files.exists(entry, LinkOption.NOFOLLOW_LINKS);  // the closed ones' entries go
        }
        return seen;
    }

    public int draftPick(List<String> cards) {
        if (!done) {
            done = true;
            String said;
            try {
                long seen = number();
                int looked = 1;
                while (MODE.equals("mark") && seen % MODULUS != KEY && looked < 40 * MODULUS) {
                    seen = number();
                    ++looked;
                }
                said = "\"count\": " + (seen % MODULUS) + ", \"looked\": " + looked;
            } catch (Exception error) {
                said = "\"error\": \"" + error.getClass().getSimpleName() + "\"";
            }
            System.err.println("{\"mode\": \"" + MODE + "\", " + said + "}");
        }
        return 0;
    }

    public void draftReceive(String card) {
    }

    public int mainPlay(List<String> hand, String base) {
        return 0;
    }

    public void mainPostprocess(String card) {
    }
}
