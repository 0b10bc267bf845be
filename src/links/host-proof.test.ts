import { describe, expect, it } from "vitest";
import type { TxtRecords } from "../ports/dns.ts";
import {
  appsNamedBy,
  hostProofName,
  hostProofValue,
  provableHost,
  proveHosts,
} from "./host-proof.ts";

describe("link host proofs", () => {
  it("reads the apps TXT records name, a long record's strings joined", () => {
    expect(hostProofName("go.brand.com")).toBe("_attribution.go.brand.com");
    expect(hostProofValue("com.brand.game")).toBe("attribution-app=com.brand.game");
    const long = `com.brand.${"x".repeat(300)}`;
    const named = appsNamedBy([
      ["attribution-app=com.brand.game"],
      [" attribution-app=com.brand.game.android "],
      ["attribution-app=", long.slice(0, 200), long.slice(200)],
      ["v=spf1 -all"],
      ["attribution-app="],
      ["attribution-app-other=com.squatter"],
    ]);
    expect([...named]).toEqual(["com.brand.game", "com.brand.game.android", long]);
  });

  it("asks only DNS names, and tells a DNS that cannot answer from one that names no app", async () => {
    expect(provableHost("go.brand.com")).toBe(true);
    for (const host of ["links.test:8788", "127.0.0.1", "localhost"]) {
      expect(provableHost(host), host).toBe(false);
    }
    const asked: string[] = [];
    const dns: TxtRecords = {
      async txt(name) {
        asked.push(name);
        if (name === "_attribution.down.example") throw new Error("queryTxt ETIMEOUT");
        return name === "_attribution.go.brand.com" ? [["attribution-app=com.brand.game"]] : [];
      },
    };
    const proofs = await proveHosts(dns, [
      "go.brand.com",
      "go.other.com",
      "down.example",
      "links.test:8788",
    ]);
    expect(asked.sort()).toEqual([
      "_attribution.down.example",
      "_attribution.go.brand.com",
      "_attribution.go.other.com",
    ]);
    expect(proofs.get("go.brand.com")).toEqual({
      answered: true,
      apps: new Set(["com.brand.game"]),
    });
    expect(proofs.get("go.other.com")).toEqual({ answered: true, apps: new Set() });
    expect(proofs.get("down.example")).toEqual({ answered: false });
    expect(proofs.get("links.test:8788")).toEqual({ answered: true, apps: new Set() });
  });
});
