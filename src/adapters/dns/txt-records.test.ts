import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestDnsServer, type TestDnsServer } from "../../../test/support/dns-server.ts";
import { createTxtRecords } from "./txt-records.ts";

describe("TXT records through Node's resolver", () => {
  let server: TestDnsServer;
  beforeAll(async () => {
    server = await startTestDnsServer();
  });
  afterAll(() => server.close());

  it("gives a name's records, none for a name that has none, and throws when the DNS fails", async () => {
    const dns = createTxtRecords({ servers: [server.server], timeoutMs: 500 });
    server.setTxt("_attribution.go.brand.com", "attribution-app=com.brand.game", "v=other");
    expect(
      (await dns.txt("_attribution.go.brand.com")).map((strings) => strings.join("")).sort(),
    ).toEqual(["attribution-app=com.brand.game", "v=other"]);
    expect(await dns.txt("_attribution.nowhere.example")).toEqual([]);
    server.failing("_attribution.down.example");
    await expect(dns.txt("_attribution.down.example")).rejects.toThrow(/ESERVFAIL/);
    // A server that never answers: the lookup gives up at its one deadline, its tries within it.
    server.silent("_attribution.far.example");
    await expect(dns.txt("_attribution.far.example")).rejects.toMatchObject({
      code: "ECANCELLED",
    });
  });
});
