// Tries to make pipes and sockets (whose inodes count the machine's: a number the next process
// could read), on its own thread and on another, and to use what the JVM's own socket pair
// serves (temporary files, javax.crypto, a selector). At its first call it says on stderr, as
// one JSON line, how each ended: "ok", or the exception's message.
import java.nio.channels.Pipe;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

public class Pipes {
    private boolean first = true;

    interface Action {
        void run() throws Exception;
    }

    private static String outcome(Action action) {
        try {
            action.run();
            return "ok";
        } catch (Exception error) {
            return String.valueOf(error.getMessage());
        }
    }

    public int draftPick(List<String> cards) throws Exception {
        if (first) {
            first = false;
            AtomicReference<String> threaded = new AtomicReference<>();
            Thread thread = new Thread(() -> threaded.set(outcome(Pipe::open)));
            thread.start();
            thread.join();
            System.err.println("{\"pipe\": \"" + outcome(Pipe::open) + "\", "
                + "\"thread_pipe\": \"" + threaded.get() + "\", "
                + "\"unix_socket\": \"" + outcome(() -> SocketChannel.open(java.net.StandardProtocolFamily.UNIX)) + "\", "
                + "\"temp_file\": \"" + outcome(() -> {
                    Path path = Files.createTempFile("pipes", ".txt");
                    Files.writeString(path, "kept");
                    if (!Files.readString(path).equals("kept")) {
                        throw new IllegalStateException("read back wrong");
                    }
                }) + "\", "
                + "\"cipher\": \"" + outcome(() -> javax.crypto.Cipher.getInstance("AES/GCM/NoPadding")) + "\", "
                + "\"selector\": \"" + outcome(() -> Selector.open().close()) + "\"}");
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
