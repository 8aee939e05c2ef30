// Tries to reach a listener on 127.0.0.1 (port filled in by the test), reports each attempt on
// stderr, then plays properly. Node reports connection errors on its event loop, which the host
// never runs, so the attempts that cannot answer at once are reported as "attempted".
{
  name: "network",
  draftPick(cards) {
    if (!this.tried) {
      this.tried = true;
      const net = require("net");
      const dgram = require("dgram");
      const port = Number("__PORT__");
      for (const host of ["127.0.0.1", "::1"]) {
        try {
          const socket = net.connect(port, host);
          socket.on("error", () => {});
          socket.write("hello from the sandbox");
          console.error(`attempted tcp ${host}`);
        } catch (error) {
          console.error(`blocked tcp ${host}: ${error.message}`);
        }
      }
      try {
        const socket = dgram.createSocket("udp4");
        socket.on("error", () => {});
        socket.send("hello from the sandbox", port, "127.0.0.1");
        console.error("attempted udp");
      } catch (error) {
        console.error(`blocked udp: ${error.message}`);
      }
      try {
        require("child_process").execFileSync("/usr/bin/python3", ["-c",
          `import socket; socket.create_connection(("127.0.0.1", ${port}))`]);
        console.error("REACHED through python");
      } catch (error) {
        console.error(`blocked python: ${error.message}`);
      }
    }
    return 0;
  },
  draftReceive(card) {},
  mainPlay(cards, base) { return 0; },
  mainPostprocess(card) {},
},
