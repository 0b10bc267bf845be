/**
 * JSON request bodies: a body over the limit is refused before it is parsed (413), and a body
 * that is not JSON is a 400 saying where it broke.
 */
import type { APIGatewayProxyEvent } from "aws-lambda";
import { BadRequestError, PayloadTooLargeError } from "../domain/errors.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** A base64 body's text; bytes that are not UTF-8 are refused, never read with U+FFFD. */
const utf8Text = (base64: string): string => {
  try {
    return utf8.decode(Buffer.from(base64, "base64"));
  } catch {
    throw new BadRequestError("The body is not valid UTF-8; JSON text in UTF-8 is expected.");
  }
};

export const readJsonBody = (event: APIGatewayProxyEvent, maxBytes: number): unknown => {
  const text = event.isBase64Encoded && event.body ? utf8Text(event.body) : (event.body ?? "");
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > maxBytes) {
    throw new PayloadTooLargeError(`The body is ${bytes} bytes; the limit is ${maxBytes}.`);
  }
  if (text.trim() === "")
    throw new BadRequestError("The body is empty; a JSON object is expected.");
  try {
    return JSON.parse(text);
  } catch (error) {
    const reason = error instanceof SyntaxError ? error.message : "malformed";
    throw new BadRequestError(`The body is not valid JSON: ${reason}`);
  }
};
