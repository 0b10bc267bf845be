/**
 * How each benchmark's reference server runs: on a free port of the loopback address, printing
 * `listening on http://…` (what spawnListening waits for), and stopping on SIGINT.
 * Plain JavaScript, so the bare references run on Node alone.
 */

/** @param {import("node:http").Server} server */
export const serve = (server) => {
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  process.once("SIGINT", () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
};
