/**
 * What the page says of a failed call whose answer is not the service's JSON: a proxy's or
 * CloudFront's error page is never shown as markup.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { errorMessage, listApps } from "../../dashboard/src/api.ts";

/** The message a person is shown when GET /v1/apps is answered with this. */
const messageFor = async (response: Response): Promise<string> => {
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => response),
  );
  try {
    await listApps();
  } catch (caught) {
    return errorMessage(caught);
  }
  throw new Error("The call did not fail");
};

const CLOUDFRONT_502 = `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd">
<HTML><HEAD><META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=iso-8859-1">
<TITLE>ERROR: The request could not be satisfied</TITLE>
</HEAD><BODY>
<H1>502 ERROR</H1>
<H2>The request could not be satisfied.</H2>
</BODY></HTML>`;

describe("errorMessage of an answer that is not JSON", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("says the status in words, not a proxy's HTML page, even without a status text (HTTP/2)", async () => {
    const message = await messageFor(
      new Response(CLOUDFRONT_502, {
        status: 502,
        headers: { "Content-Type": "text/html" },
      }),
    );
    expect(message).toBe("The service answered 502 Bad Gateway. Try again.");
  });

  it("says a gateway's time-out with its own status text", async () => {
    const message = await messageFor(
      new Response("<html><body><h1>504 Gateway Time-out</h1></body></html>", {
        status: 504,
        statusText: "Gateway Time-out",
        headers: { "Content-Type": "text/html; charset=utf-8" },
      }),
    );
    expect(message).toBe("The service answered 504 Gateway Time-out. Try again.");
  });

  it("does not show a long plain-text body, nor one of no type", async () => {
    const long = await messageFor(
      new Response("x".repeat(500), { status: 500, headers: { "Content-Type": "text/plain" } }),
    );
    expect(long).toBe("The service answered 500 Internal Server Error. Try again.");
    const untyped = await messageFor(new Response(new Blob(["upstream failed"]), { status: 503 }));
    expect(untyped).toBe("The service answered 503 Service Unavailable. Try again.");
  });

  it("shows a short plain-text body as it is", async () => {
    const message = await messageFor(
      new Response("Service is restarting, back in a minute.\n", {
        status: 503,
        headers: { "Content-Type": "text/plain; charset=utf-8" },
      }),
    );
    expect(message).toBe("Service is restarting, back in a minute.");
  });

  it("still says the service's own JSON refusal", async () => {
    const message = await messageFor(
      new Response(JSON.stringify({ error: "BadRequest", detail: "name: must not be empty" }), {
        status: 400,
        headers: { "Content-Type": "application/json" },
      }),
    );
    expect(message).toBe("name: must not be empty");
  });
});
