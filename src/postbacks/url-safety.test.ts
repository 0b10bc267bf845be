import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { Agent, createServer, get, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import {
  addressRefusal,
  checkConfiguredUrl,
  checkUrlSyntax,
  isLoopbackUrl,
  isUnsafeAddressError,
  type LookupAll,
  REQUEST_LIMITS,
  type Resolver,
  safeAgentOptions,
  UNSAFE_ADDRESS_CODE,
} from "./url-safety.ts";

describe("isLoopbackUrl", () => {
  it("tells this machine's URLs, in every spelling of its addresses, from the rest", () => {
    for (const url of [
      "http://localhost:9000/in",
      "http://localhost.:9000/in",
      "https://127.0.0.1/x",
      "http://127.8.9.10/x",
      "http://[::1]:9/x",
      "http://[0:0:0:0:0:0:0:1]/x",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ["https://example.com/", "http://10.0.0.1/", "not a url", "http://[::2]/"]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});

describe("addressRefusal", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "link-local"],
    ["fe80::1", "link-local"],
    ["100.64.0.1", "carrier-nat"],
    ["100.127.255.254", "carrier-nat"],
    ["169.254.169.254", "metadata"],
    ["fd00:ec2::254", "metadata"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "multicast"],
    ["192.0.2.10", "reserved"],
    ["2001:db8::1", "reserved"],
    ["240.0.0.1", "reserved"],
    // IPv4 addresses written as IPv6 ones are judged as the IPv4 address.
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "metadata"],
    ["[::ffff:7f00:1]", "loopback"],
    // NAT64 and 6to4 embed an IPv4 address, which could be anything: refused whole.
    ["64:ff9b::a9fe:a9fe", "reserved"],
    ["2002:7f00:1::1", "reserved"],
    // IPv4-compatible (::/96), which ipaddr.js calls unicast: refused whole, in either spelling.
    ["::a9fe:a9fe", "reserved"],
    ["[::a9fe:a9fe]", "reserved"],
    ["::169.254.169.254", "reserved"],
    ["::808:808", "reserved"],
    ["::8.8.8.8", "reserved"],
    ["::102:304", "reserved"],
    ["not an address", "not-an-address"],
  ])("refuses %s as %s", (address, refusal) => {
    expect(addressRefusal(address)).toBe(refusal);
  });

  it.each([
    "8.8.8.8",
    "172.32.0.1",
    "100.128.0.1",
    "169.255.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
  ])("lets the public address %s through", (address) => {
    expect(addressRefusal(address)).toBeNull();
  });

  it("lets loopback through only under the operator's setting, and nothing else with it", () => {
    expect(addressRefusal("127.0.0.1", { allowLoopback: true })).toBeNull();
    expect(addressRefusal("::1", { allowLoopback: true })).toBeNull();
    expect(addressRefusal("10.0.0.1", { allowLoopback: true })).toBe("private");
    expect(addressRefusal("169.254.169.254", { allowLoopback: true })).toBe("metadata");
  });

  it("refuses every address of the private IPv4 ranges, in either notation", () => {
    const octet = fc.integer({ min: 0, max: 255 });
    const privateV4 = fc.oneof(
      fc.tuple(octet, octet, octet).map(([b, c, d]) => `10.${b}.${c}.${d}`),
      fc
        .tuple(fc.integer({ min: 16, max: 31 }), octet, octet)
        .map(([b, c, d]) => `172.${b}.${c}.${d}`),
      fc.tuple(octet, octet).map(([c, d]) => `192.168.${c}.${d}`),
    );
    fc.assert(
      fc.property(privateV4, (address) => {
        expect(addressRefusal(address)).toBe("private");
        expect(addressRefusal(`::ffff:${address}`)).toBe("private");
      }),
    );
  });
});

describe("checkUrlSyntax", () => {
  const problem = (url: string, options = {}) => {
    const check = checkUrlSyntax(url, options);
    return check.ok ? null : check.problem;
  };

  it("takes an https URL on a name or a public address", () => {
    expect(problem("https://postbacks.example.com/install?x=1")).toBeNull();
    expect(problem("https://8.8.8.8/p")).toBeNull();
  });

  it("refuses what is not https, and credentials, fragments and oversize URLs", () => {
    expect(problem("http://postbacks.example.com/")).toBe("must be https");
    expect(problem("ftp://postbacks.example.com/")).toBe("must be https");
    expect(problem("https://user:pw@postbacks.example.com/")).toMatch(/user name or password/);
    expect(problem("https://postbacks.example.com/#x")).toMatch(/fragment/);
    expect(problem("/relative")).toMatch(/absolute/);
    const long = `https://postbacks.example.com/?q=${"a".repeat(REQUEST_LIMITS.maxUrlBytes)}`;
    expect(problem(long)).toMatch(/longer than/);
    // A user name alone or a password alone is a credential all the same.
    expect(problem("https://user@postbacks.example.com/")).toMatch(/user name or password/);
    expect(problem("https://:pw@postbacks.example.com/")).toMatch(/user name or password/);
  });

  it("takes a URL of exactly the bound, counted in bytes", () => {
    const base = "https://postbacks.example.com/?q=";
    const fill = (bytes: number) => `${base}${"a".repeat(bytes - base.length)}`;
    expect(problem(fill(REQUEST_LIMITS.maxUrlBytes))).toBeNull();
    expect(problem(fill(REQUEST_LIMITS.maxUrlBytes + 1))).toMatch(/longer than/);
    // Two bytes a character: half as many characters reach the bound.
    const accented = `${base}${"é".repeat((REQUEST_LIMITS.maxUrlBytes - base.length) / 2 + 1)}`;
    expect(problem(accented)).toMatch(/longer than/);
  });

  it("refuses a literal address that is not public, however it is written", () => {
    expect(problem("https://127.0.0.1/")).toMatch(/loopback/);
    expect(problem("https://[::1]:8443/")).toMatch(/loopback/);
    // The URL parser reads a decimal or hex host as the IPv4 address it is.
    expect(problem("https://2130706433/")).toMatch(/loopback/);
    expect(problem("https://0x7f.1/")).toMatch(/loopback/);
    expect(problem("https://169.254.169.254/latest/meta-data/")).toMatch(/metadata/);
    expect(problem("https://[fd00:ec2::254]/")).toMatch(/metadata/);
    expect(problem("https://[::ffff:192.168.0.1]/")).toMatch(/private/);
    expect(problem("https://[::a9fe:a9fe]/latest/meta-data/")).toMatch(/reserved/);
    expect(problem("https://[::169.254.169.254]/")).toMatch(/reserved/);
  });

  it("lets http reach loopback, and only loopback, under the operator's setting", () => {
    expect(problem("http://127.0.0.1:8080/pb", { allowLoopback: true })).toBeNull();
    expect(problem("http://localhost:8080/pb", { allowLoopback: true })).toBeNull();
    expect(problem("http://postbacks.example.com/", { allowLoopback: true })).toBe("must be https");
    expect(problem("http://10.0.0.1/", { allowLoopback: true })).toBe("must be https");
    expect(problem("ftp://127.0.0.1/pb", { allowLoopback: true })).toBe("must be https");
    expect(problem("http://127.0.0.1:8080/pb")).toBe("must be https");
    expect(problem("http://localhost:8080/pb")).toBe("must be https");
  });
});

describe("checkConfiguredUrl", () => {
  const resolving =
    (answers: Record<string, string[]>): Resolver =>
    async (host) => {
      const addresses = answers[host];
      if (!addresses) throw Object.assign(new Error("not found"), { code: "ENOTFOUND" });
      return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
    };

  it("takes a name whose every address is public", async () => {
    const resolve = resolving({ "pb.example.com": ["93.184.216.34", "2606:2800:220:1::1"] });
    expect((await checkConfiguredUrl("https://pb.example.com/x", resolve)).ok).toBe(true);
  });

  it("refuses a name with one private address among public ones", async () => {
    const resolve = resolving({ "pb.example.com": ["93.184.216.34", "10.0.0.7"] });
    const check = await checkConfiguredUrl("https://pb.example.com/x", resolve);
    expect(check).toEqual({
      ok: false,
      problem: "resolves to a private address (pb.example.com → 10.0.0.7)",
    });
  });

  it("refuses a name that resolves to nothing or does not resolve", async () => {
    const resolve = resolving({ "empty.example.com": [] });
    expect((await checkConfiguredUrl("https://empty.example.com/", resolve)).ok).toBe(false);
    expect((await checkConfiguredUrl("https://gone.example.com/", resolve)).ok).toBe(false);
  });

  it("takes a literal public address without asking DNS", async () => {
    const check = await checkConfiguredUrl("https://93.184.216.34/x", resolving({}));
    expect(check.ok).toBe(true);
  });

  it("takes a name resolving to loopback only where the operator allows loopback", async () => {
    const resolve = resolving({ localhost: ["127.0.0.1"] });
    const allowed = await checkConfiguredUrl("http://localhost:8080/x", resolve, {
      allowLoopback: true,
    });
    expect(allowed.ok).toBe(true);
    expect((await checkConfiguredUrl("https://localhost/", resolve)).ok).toBe(false);
  });

  it("refuses localhost by what it resolves to", async () => {
    const resolve = resolving({ localhost: ["127.0.0.1"] });
    const check = await checkConfiguredUrl("https://localhost/", resolve);
    expect(check.ok ? null : check.problem).toMatch(/loopback/);
  });
});

describe("the agent's lookup at the moment of sending", () => {
  let server: Server | undefined;
  let connections = 0;

  const listen = async (): Promise<number> => {
    connections = 0;
    const started = createServer((_request, response) => response.end("ok"));
    started.on("connection", () => {
      connections += 1;
    });
    server = started;
    await new Promise<void>((resolve) => started.listen(0, "127.0.0.1", resolve));
    return (started.address() as AddressInfo).port;
  };

  afterEach(async () => {
    const running = server;
    server = undefined;
    if (!running) return;
    running.closeAllConnections();
    await new Promise((resolve) => running.close(resolve));
  });

  const fetchThrough = (agent: Agent, url: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      get(url, { agent }, (response) => {
        let body = "";
        response.on("data", (chunk) => {
          body += chunk;
        });
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      }).on("error", reject);
    });

  /** A name that exists only here, answered with the given addresses. */
  const fakeDns =
    (answers: () => string[]): LookupAll =>
    (_hostname, _options, callback) => {
      const addresses: LookupAddress[] = answers().map((address) => ({
        address,
        family: address.includes(":") ? 6 : 4,
      }));
      callback(null, addresses);
    };

  it("refuses to connect to a loopback address, and no connection is made", async () => {
    const port = await listen();
    const agent = new Agent(safeAgentOptions(dnsLookup as unknown as LookupAll));
    const failure = await fetchThrough(agent, `http://localhost:${port}/`).catch((e) => e);
    expect(isUnsafeAddressError(failure)).toBe(true);
    expect((failure as NodeJS.ErrnoException).code).toBe(UNSAFE_ADDRESS_CODE);
    expect(connections).toBe(0);
  });

  it("connects to exactly the address it checked (a name no DNS knows reaches it)", async () => {
    const port = await listen();
    const agent = new Agent(
      safeAgentOptions(
        fakeDns(() => ["127.0.0.1"]),
        { allowLoopback: true },
      ),
    );
    const answer = await fetchThrough(agent, `http://postback.invalid:${port}/`);
    expect(answer).toEqual({ status: 200, body: "ok" });
    expect(connections).toBe(1);
  });

  it("refuses a name re-pointed to a private address after the configuration was checked", async () => {
    const port = await listen();
    let answers = ["93.184.216.34"];
    const resolve: Resolver = async () => answers.map((address) => ({ address, family: 4 }));
    // Saved while the name answered a public address…
    expect((await checkConfiguredUrl("https://rebind.example.com/", resolve)).ok).toBe(true);
    // …and re-pointed at the machine itself before the send.
    answers = ["127.0.0.1"];
    const agent = new Agent(safeAgentOptions(fakeDns(() => answers)));
    const failure = await fetchThrough(agent, `http://rebind.example.com:${port}/`).catch((e) => e);
    expect(isUnsafeAddressError(failure)).toBe(true);
    expect(connections).toBe(0);
  });

  it("answers both shapes Node asks for: one address, or all of them", async () => {
    const lookup = safeAgentOptions(fakeDns(() => ["93.184.216.34", "2606:2800:220:1::1"])).lookup;
    const one = await new Promise((resolve) =>
      lookup("pb.example.com", {}, (error, address, family) => resolve({ error, address, family })),
    );
    expect(one).toEqual({ error: null, address: "93.184.216.34", family: 4 });
    const all = await new Promise((resolve) =>
      lookup("pb.example.com", { all: true }, (error, addresses) => resolve({ error, addresses })),
    );
    expect(all).toEqual({
      error: null,
      addresses: [
        { address: "93.184.216.34", family: 4 },
        { address: "2606:2800:220:1::1", family: 6 },
      ],
    });
    const v6 = safeAgentOptions(fakeDns(() => ["2606:2800:220:1::1"])).lookup;
    const first = await new Promise((resolve) =>
      v6("pb.example.com", {}, (error, address, family) => resolve({ error, address, family })),
    );
    expect(first).toEqual({ error: null, address: "2606:2800:220:1::1", family: 6 });
  });

  it("asks DNS for the family the socket asks for, and keeps idle connections as long as told", () => {
    const asked: LookupOptions[] = [];
    const recording: LookupAll = (_hostname, options, callback) => {
      asked.push(options);
      callback(null, [{ address: "2606:2800:220:1::1", family: 6 }]);
    };
    const options = safeAgentOptions(recording, {}, 1_234);
    options.lookup("pb.example.com", { family: 6 }, () => {});
    expect(asked).toEqual([{ family: 6, all: true }]);
    expect(options.timeout).toBe(1_234);
  });
});
