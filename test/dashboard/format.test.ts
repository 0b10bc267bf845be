/** The dashboard's amounts in dollars: to the cent, and a small one to two significant digits. */
import { describe, expect, it } from "vitest";
import { formatKnownUsd, formatUsd } from "../../dashboard/src/format.ts";

describe("formatUsd", () => {
  it("shows an amount under a dime to two significant digits, not as $0.00", () => {
    // A CPC click's eCPI of four tenths of a cent.
    expect(formatUsd(0.004)).toBe("$0.004");
    expect(formatKnownUsd(0.004)).toBe("$0.004");
    expect(formatUsd(0.0456)).toBe("$0.046");
    expect(formatUsd(0.05)).toBe("$0.05");
    expect(formatUsd(-0.0042)).toBe("-$0.0042");
    // The reports keep a millionth of a dollar, and no more.
    expect(formatUsd(0.000001)).toBe("$0.000001");
  });

  it("shows other amounts to the cent, and one not known as —", () => {
    expect(formatUsd(0)).toBe("$0.00");
    expect(formatUsd(0.1)).toBe("$0.10");
    expect(formatUsd(5)).toBe("$5.00");
    expect(formatUsd(1234.567)).toBe("$1,234.57");
    expect(formatUsd(null)).toBe("—");
    expect(formatUsd(Number.NaN)).toBe("—");
  });
});
