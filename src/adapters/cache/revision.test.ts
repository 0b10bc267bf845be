import { describe, expect, it } from "vitest";
import { followRevision } from "./revision.ts";

describe("followRevision", () => {
  it("calls back once per move of the token, before answering it", () => {
    let token = "r1";
    const moves: string[] = [];
    const current = followRevision(
      () => token,
      () => moves.push(token),
    );
    expect(current()).toBe("r1");
    token = "r2";
    expect(current()).toBe("r2");
    expect(current()).toBe("r2");
    expect(moves).toEqual(["r2"]);
  });
});
