import { describe, expect, it } from "vitest";
import { serviceUrl } from "./service-url.ts";

describe("a route of the service at --url", () => {
  it("is below the base however it ends: with or without a slash, with or without a stage", () => {
    for (const base of ["http://127.0.0.1:8787", "http://127.0.0.1:8787/"]) {
      expect(serviceUrl(base, "/api/v1/export").href).toBe("http://127.0.0.1:8787/api/v1/export");
      expect(serviceUrl(base, "v1/costs").href).toBe("http://127.0.0.1:8787/v1/costs");
    }
    // API Gateway's ApiUrl output: its stage's path, always with a slash at the end.
    for (const base of [
      "https://abc.execute-api.eu-west-1.amazonaws.com/prod/",
      "https://abc.execute-api.eu-west-1.amazonaws.com/prod",
      "https://abc.execute-api.eu-west-1.amazonaws.com/prod//",
    ]) {
      expect(serviceUrl(base, "/v1/costs").href).toBe(
        "https://abc.execute-api.eu-west-1.amazonaws.com/prod/v1/costs",
      );
    }
  });

  it("carries neither the query nor the fragment of the base without a query given", () => {
    expect(serviceUrl("https://api.example.com/prod/?stage=1#top", "/v1/costs").href).toBe(
      "https://api.example.com/prod/v1/costs",
    );
  });

  it("carries the query given, and none the base had", () => {
    const url = serviceUrl(
      "https://api.example.com/attribution/",
      "/api/v1/export",
      new URLSearchParams({ timestamp: "0", format: "csv" }),
    );
    expect(url.href).toBe(
      "https://api.example.com/attribution/api/v1/export?timestamp=0&format=csv",
    );
  });

  it("refuses a base that is no http or https URL, saying what --url must be", () => {
    for (const base of ["", "127.0.0.1:8787", "ftp://example.com/", "not a url"]) {
      expect(() => serviceUrl(base, "/v1/costs"), base).toThrow(
        /^--url must be the service's http or https address/,
      );
    }
  });
});
