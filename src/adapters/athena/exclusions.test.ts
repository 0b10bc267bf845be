import { describe, expect, it } from "vitest";
import { exclusionList } from "./exclusions.ts";

describe("exclusion lists", () => {
  it("hold each service id once, one a line, named by their content", () => {
    const list = exclusionList(["s-2", "s-1", "s-2"]);
    expect(list.body).toBe("s-1\ns-2\n");
    expect(list.count).toBe(2);
    expect(list.list).toMatch(/^[0-9a-f]{64}$/);
    expect(list.key).toBe(`exclusions/${list.list}/service-ids.txt`);
    // The same installs make the same list, whatever their order: the same query.
    expect(exclusionList(["s-1", "s-2"])).toEqual(list);
    expect(exclusionList(["s-1"]).list).not.toBe(list.list);
  });

  it("refuses an id outside the service id rule: it could read as two, or as null", () => {
    for (const id of ["a\nb", "\\N", "a\u0001b", ""]) {
      expect(() => exclusionList([id])).toThrow(RangeError);
    }
  });
});
