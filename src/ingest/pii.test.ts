import { describe, expect, it } from "vitest";
import { normalisePii, protectPii, sha256Marked } from "./pii.ts";

// Known SHA-256 digests, as an ad network computes them from the normalised value.
const TEST_EMAIL = "sha256:973dfe463ec85785f5f95af5ba3906eedb2d931c24e69824a89ea65dba4e813b";
const PHONE_15550109999 = "sha256:91a02cd9e0fdea8309e2361e0c1d2eb133b283c1cc08d5562185d25a613783af";

const SEALED = "sealed:envelope";
const isSealed = (value: string) => value.startsWith("sealed:");

const normalised = (key: Parameters<typeof normalisePii>[0], value: string) => {
  const result = normalisePii(key, value);
  return result.ok ? result.value : `error: ${result.message}`;
};

describe("normalisePii", () => {
  it("trims and lowercases an email, and leaves Gmail's dots alone", () => {
    expect(normalised("email", "  Test@Example.COM ")).toBe("test@example.com");
    expect(normalised("email", "John.Smith@gmail.com")).toBe("john.smith@gmail.com");
  });

  it("keeps a phone number's digits with the country code, no leading zeros", () => {
    expect(normalised("phone_number", "+1 (555) 010-9999")).toBe("15550109999");
    expect(normalised("phone_number", "0049 30 1234-567")).toBe("49301234567");
    expect(normalised("phone_number", "+44.20.7946.0018")).toBe("442079460018");
  });

  it("trims and lowercases a name, composing accents", () => {
    expect(normalised("name", "  John Smith ")).toBe("john smith");
    expect(normalised("name", "Jose\u0301")).toBe("jos\u00e9");
  });

  it("writes a date of birth as YYYYMMDD", () => {
    for (const value of [
      "1990-01-31",
      "19900131",
      "1990/01/31",
      "1990.01.31",
      "1990-01-31T00:00:00Z",
      " 1990-01-31 ",
    ]) {
      expect(normalised("date_of_birth", value)).toBe("19900131");
    }
    // A month, a day or a year that the calendar lacks is no date, not one rolled over.
    for (const value of [
      "31/01/1990",
      "1990-02-30",
      "yesterday",
      "1990-1-3",
      "1990-13-01",
      "1990-00-10",
      "1990-01-00",
      "1990-01-32",
      "0050-01-31",
    ]) {
      expect(normalised("date_of_birth", value)).toBe(
        "error: must be a date as YYYY-MM-DD or YYYYMMDD, e.g. 1990-01-31",
      );
    }
  });

  it("writes gender as m or f, any other answer lowercased", () => {
    expect(normalised("gender", " Male")).toBe("m");
    expect(normalised("gender", "F")).toBe("f");
    expect(normalised("gender", "female")).toBe("f");
    expect(normalised("gender", "Non-Binary")).toBe("non-binary");
  });
});

describe("protectPii", () => {
  it("hashes each clear value after normalising it, under the same key", () => {
    const result = protectPii(
      { email: " TEST@example.com", phone_number: "+1 555 010 9999", other: "kept" },
      isSealed,
    );
    expect(result).toEqual({
      parameters: { email: TEST_EMAIL, phone_number: PHONE_15550109999, other: "kept" },
      warnings: [],
    });
    expect(protectPii({ name: "John Smith" }, isSealed).parameters.name).toBe(
      sha256Marked("john smith"),
    );
    expect(protectPii({ date_of_birth: "1990-01-31" }, isSealed).parameters.date_of_birth).toBe(
      sha256Marked("19900131"),
    );
    expect(protectPii({ gender: "Male" }, isSealed).parameters.gender).toBe(sha256Marked("m"));
  });

  it("takes a phone number or a date sent as a JSON number by its digits", () => {
    expect(protectPii({ phone_number: 15550109999 }, isSealed).parameters.phone_number).toBe(
      PHONE_15550109999,
    );
    expect(protectPii({ date_of_birth: 19900131 }, isSealed).parameters.date_of_birth).toBe(
      sha256Marked("19900131"),
    );
  });

  it("leaves a sealed value sealed", () => {
    expect(protectPii({ email: SEALED, name: SEALED }, isSealed).parameters).toEqual({
      email: SEALED,
      name: SEALED,
    });
  });

  it("hashes a value whose sealing cannot be told, rather than keep it in clear", () => {
    const failing = () => {
      throw new Error("bad envelope");
    };
    expect(protectPii({ email: "test@example.com" }, failing).parameters.email).toBe(TEST_EMAIL);
  });

  it("keeps a value the app hashed already, in the marked lowercase form", () => {
    const hex = "973DFE463EC85785F5F95AF5BA3906EEDB2D931C24E69824A89EA65DBA4E813B";
    expect(protectPii({ email: hex }, isSealed).parameters.email).toBe(TEST_EMAIL);
    expect(protectPii({ email: TEST_EMAIL }, isSealed).parameters.email).toBe(TEST_EMAIL);
  });

  it("hashes only top-level keys: a product's name is not a person's", () => {
    const parameters = { items: [{ name: "Gem Pack" }], name: "Ann" };
    expect(protectPii(parameters, isSealed).parameters).toEqual({
      items: [{ name: "Gem Pack" }],
      name: sha256Marked("ann"),
    });
  });

  it("drops a value that is not a string or number, and a bad date of birth, with a warning", () => {
    expect(
      protectPii(
        { email: ["a@b.c"], gender: true, date_of_birth: "31.01.1990", name: "Ann", other: 1 },
        isSealed,
      ),
    ).toEqual({
      parameters: { name: sha256Marked("ann"), other: 1 },
      warnings: [
        "parameters.email was dropped: it must be a string or a number (in clear or sealed)",
        "parameters.date_of_birth was dropped: it must be a date as YYYY-MM-DD or YYYYMMDD, e.g. 1990-01-31",
        "parameters.gender was dropped: it must be a string or a number (in clear or sealed)",
      ],
    });
  });

  it("drops a value that is empty once normalised, with a warning", () => {
    expect(protectPii({ phone_number: "n/a", email: "  " }, isSealed)).toEqual({
      parameters: {},
      warnings: [
        "parameters.email was dropped: it is empty once normalised",
        "parameters.phone_number was dropped: it is empty once normalised",
      ],
    });
  });

  it("does not modify its input", () => {
    const parameters = { email: "a@b.c" };
    protectPii(parameters, isSealed);
    expect(parameters).toEqual({ email: "a@b.c" });
  });
});
