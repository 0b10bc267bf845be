import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { unreachable } from "./unreachable.ts";

describe("a service that does not answer", () => {
  it("is named with its address, the socket's code and the likely cause", async () => {
    // A port just freed: nothing listens there.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}`;
    const error = await fetch(`${url}/v1/costs`).catch((caught: unknown) => caught);
    expect(unreachable(url, error).message).toBe(
      `The service at ${url} did not answer (ECONNREFUSED): is \`attribution start\` running, and is --url its address?`,
    );
  });
});
