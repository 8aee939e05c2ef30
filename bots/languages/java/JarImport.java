// Card Arena: a built jar's classes taken into a bot's program. Run by the compile step, in
// the compiler's sandbox, after javac has compiled the host and the game's kit into the
// program's folder; never part of the program.
//
//   java -cp <program folder>:<gson> card_arena.JarImport <the jar> <program folder>
//
// Every entry of the jar is copied into the folder but its manifest and what the platform
// already put there: the kit's classes are Card Arena's own (a jar built with the original
// kit holds copies of them), and the host and the adapter are never the bot's. The bot's class
// is then the one public, concrete class of the jar that the game's adapter takes
// (card_arena.Adapter.accepts, and TAKES in a refusal's words); its name is written to
// card_arena/bot-class, where the host reads it. Whatever is wrong is said on stderr, in
// one line each, and the exit status is 1: the compile's messages, shown to the author.
package card_arena;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

public final class JarImport {
    // what a bot's jar may hold: entries, and bytes once unpacked
    static final int MAX_ENTRIES = 4096;
    static final long MAX_BYTES = 32L << 20;

    private JarImport() {
    }

    public static void main(String[] args) throws Exception {
        try {
            run(Path.of(args[0]), Path.of(args[1]));
        } catch (Refused refused) {
            System.err.println(refused.getMessage());
            System.exit(1);
        }
    }

    static final class Refused extends Exception {
        Refused(String message) {
            super(message);
        }
    }

    static void run(Path jar, Path out) throws Exception {
        List<String> classes = new ArrayList<>();
        List<String> ours = new ArrayList<>();
        ZipFile zip;
        try {
            zip = new ZipFile(jar.toFile());
        } catch (IOException error) {
            throw new Refused("the file is not a jar (a zip archive): " + error.getMessage());
        }
        try (zip) {
            if (zip.size() > MAX_ENTRIES) {
                throw new Refused("the jar holds " + zip.size() + " entries; the most a bot's jar may hold is " + MAX_ENTRIES);
            }
            long total = 0;
            var entries = zip.entries();
            while (entries.hasMoreElements()) {
                ZipEntry entry = entries.nextElement();
                String name = entry.getName();
                if (entry.isDirectory() || name.startsWith("META-INF/")) {
                    continue;
                }
                // (a part that is "..": "x/..y" is a file's name like any other)
                if (name.startsWith("/") || name.contains("\\") || name.contains("\0")
                        || java.util.Arrays.asList(name.split("/")).contains("..")) {
                    throw new Refused("the jar holds an entry with a path outside the jar: " + printable(name));
                }
                if (name.startsWith("card_arena/")) {
                    throw new Refused("the jar holds " + printable(name) + ": card_arena is Card Arena's own package");
                }
                Path target = out.resolve(name).normalize();
                if (!target.startsWith(out)) {
                    throw new Refused("the jar holds an entry with a path outside the jar: " + printable(name));
                }
                if (Files.exists(target)) {  // the platform's own class: the kit's, the host's
                    ours.add(name);
                    continue;
                }
                try {
                    Files.createDirectories(target.getParent());
                } catch (IOException error) {
                    throw new Refused("the jar's entry " + printable(name) + " cannot be unpacked: " + error);
                }
                try (InputStream in = zip.getInputStream(entry); OutputStream copy = Files.newOutputStream(target)) {
                    byte[] buffer = new byte[65536];
                    for (int read; (read = in.read(buffer)) > 0; ) {
                        total += read;
                        if (total > MAX_BYTES) {
                            throw new Refused("the jar unpacks to more than " + (MAX_BYTES >> 20) + " MiB; the most a bot's jar may hold");
                        }
                        copy.write(buffer, 0, read);
                    }
                } catch (IOException error) {
                    throw new Refused("the jar's entry " + printable(name) + " cannot be read: " + error.getMessage());
                }
                if (name.endsWith(".class") && !name.endsWith("module-info.class")) {
                    classes.add(name.substring(0, name.length() - ".class".length()).replace('/', '.'));
                }
            }
        }
        String bot = botClass(classes, out);
        Files.writeString(out.resolve("card_arena/bot-class"), bot, StandardCharsets.UTF_8);
        System.err.println("took " + bot + " from the jar (" + classes.size() + " classes; "
                + ours.size() + " of the kit's own left to Card Arena's)");
    }

    // The jar's class that the game's adapter takes: there must be exactly one.
    static String botClass(List<String> classes, Path out) throws Refused {
        Method accepts;
        String takes;  // what the adapter takes, in the game's own words
        try {
            Class<?> adapter = Class.forName("card_arena.Adapter");
            accepts = adapter.getMethod("accepts", Class.class);
            takes = (String) adapter.getField("TAKES").get(null);
        } catch (ReflectiveOperationException none) {
            throw new Refused("a built jar is taken for a game that gives Java bots a kit of classes"
                    + " to build against; for this game, upload the bot's .java file");
        }
        List<String> found = new ArrayList<>();
        ClassLoader loader = JarImport.class.getClassLoader();
        for (String name : classes) {
            Class<?> type;
            try {
                type = Class.forName(name, false, loader);
            } catch (UnsupportedClassVersionError error) {
                int ours = Runtime.version().feature();
                throw new Refused(name + " was built for Java " + builtFor(out, name) + ", a newer Java than"
                        + " Card Arena's Java " + ours + ": build it for Java " + ours + " or older"
                        + " (maven.compiler.release " + ours + ")");
            } catch (LinkageError | ClassNotFoundException error) {
                throw new Refused(name + " cannot be loaded: " + error);
            }
            int modifiers = type.getModifiers();
            boolean concrete = Modifier.isPublic(modifiers) && !Modifier.isAbstract(modifiers)
                    && !type.isInterface() && type.getEnclosingClass() == null;
            try {
                if (concrete && (Boolean) accepts.invoke(null, type)) {
                    found.add(name);
                }
            } catch (ReflectiveOperationException | LinkageError error) {
                throw new Refused(name + " cannot be loaded: " + error);
            }
        }
        if (found.isEmpty()) {
            throw new Refused("the jar holds no public class that implements " + takes
                    + ": " + classes.size() + (classes.size() == 1 ? " class was" : " classes were")
                    + " looked at");
        }
        if (found.size() > 1) {
            throw new Refused("the jar holds " + found.size() + " strategies (" + String.join(", ", found)
                    + "): a bot's jar holds one");
        }
        return found.get(0);
    }

    // The Java release a class file was built for, from its major version (Java 17: 61).
    private static String builtFor(Path out, String name) {
        try (InputStream in = Files.newInputStream(out.resolve(name.replace('.', '/') + ".class"))) {
            byte[] head = in.readNBytes(8);
            return String.valueOf(((head[6] & 0xff) << 8 | (head[7] & 0xff)) - 44);
        } catch (IOException | ArrayIndexOutOfBoundsException error) {
            return "a newer release";
        }
    }

    private static String printable(String name) {
        StringBuilder out = new StringBuilder();
        for (char c : name.toCharArray()) {
            out.append(c < 0x20 || c == 0x7f ? '?' : c);
        }
        return out.length() > 120 ? out.substring(0, 120) + "..." : out.toString();
    }
}
