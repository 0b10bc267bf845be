import { randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { KeyUnwrapError } from "../../crypto/key-wrapper.ts";
import { canonicalContext, createKeyFileWrapper } from "./key-file-wrapper.ts";

const CONTEXT = { appId: "com.example.game", keyId: "k0123456789abcdef" };

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => "unwrapped",
    (error: unknown) => (error instanceof KeyUnwrapError ? error.reason : error),
  );

describe("key-file wrapper", () => {
  let dir: string;
  let keyFile: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "key-file-"));
    keyFile = join(dir, "keys", "master.key");
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it("round-trips", async () => {
    const wrapper = createKeyFileWrapper(keyFile);
    const secret = randomBytes(138);
    const wrapped = await wrapper.wrap(secret, CONTEXT);
    expect(wrapped).toMatch(/^kf1\.[0-9a-f]{16}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(wrapped).not.toContain(secret.toString("base64url"));
    await expect(wrapper.unwrap(wrapped, CONTEXT)).resolves.toEqual(secret);
    // Key order is not part of the context.
    await expect(
      wrapper.unwrap(wrapped, { keyId: CONTEXT.keyId, appId: CONTEXT.appId }),
    ).resolves.toEqual(secret);
  });

  it("fails with another context", async () => {
    const wrapper = createKeyFileWrapper(keyFile);
    const wrapped = await wrapper.wrap(randomBytes(32), CONTEXT);
    expect(await failure(wrapper.unwrap(wrapped, { ...CONTEXT, appId: "com.example.other" }))).toBe(
      "authentication-failed",
    );
    expect(await failure(wrapper.unwrap(wrapped, { appId: CONTEXT.appId }))).toBe(
      "authentication-failed",
    );
    expect(await failure(wrapper.unwrap(wrapped, { ...CONTEXT, extra: "" }))).toBe(
      "authentication-failed",
    );
  });

  it("fails when tampered with", async () => {
    const wrapper = createKeyFileWrapper(keyFile);
    const wrapped = await wrapper.wrap(randomBytes(32), CONTEXT);
    const [version = "", check = "", nonce = "", body = ""] = wrapped.split(".");
    const flip = (part: string, index: number) => {
      const bytes = Buffer.from(part, "base64url");
      bytes[index] = (bytes[index] ?? 0) ^ 0x80;
      return bytes.toString("base64url");
    };
    const tampered = [
      [version, check, flip(nonce, 0), body],
      [version, check, nonce, flip(body, 0)],
      [version, check, nonce, flip(body, Buffer.from(body, "base64url").length - 1)],
    ];
    for (const parts of tampered) {
      expect(await failure(wrapper.unwrap(parts.join("."), CONTEXT))).toBe("authentication-failed");
    }
    expect(
      await failure(wrapper.unwrap([version, "0".repeat(16), nonce, body].join("."), CONTEXT)),
    ).toBe("wrong-master-key");
    for (const malformed of [
      "",
      "kf1",
      `kms1.${body}`,
      `kf2.${check}.${nonce}.${body}`,
      `${wrapped}.x`,
      `kf1.${check}.${nonce}.${body}=`,
      // A nonce of another length, and a body shorter than its tag.
      `kf1.${check}.${randomBytes(16).toString("base64url")}.${body}`,
      `kf1.${check}.${nonce}.${randomBytes(15).toString("base64url")}`,
    ]) {
      expect(await failure(wrapper.unwrap(malformed, CONTEXT))).toBe("malformed");
    }
  });

  it("opens what an earlier release wrapped under the same key file: its format is fixed", async () => {
    // A master key of 32 bytes of 7, and a key wrapped under it in this format once.
    await mkdir(join(dir, "keys"));
    await writeFile(keyFile, "BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc\n");
    const wrapped =
      "kf1.a15455099e187845.-DDDWxKqkzwsZ8Z_.fl0wJ6FCyOYmhfKsNRSOvjbpx9YTdSmThY6ZTHgFuDhNtO9AJw";
    const wrapper = createKeyFileWrapper(keyFile);
    expect((await wrapper.unwrap(wrapped, CONTEXT)).toString("utf8")).toBe("the app's signing key");
    // The master key is named the same way by every wrapping.
    expect((await wrapper.wrap(Buffer.from("another"), CONTEXT)).split(".")[1]).toBe(
      "a15455099e187845",
    );
  });

  it("creates the key file with mode 0600 on first use, and a second instance reads it", async () => {
    const first = createKeyFileWrapper(keyFile);
    await expect(stat(keyFile)).rejects.toThrow();
    const wrapped = await first.wrap(Buffer.from("secret"), CONTEXT);
    if (process.platform !== "win32") {
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
      expect((await stat(join(dir, "keys"))).mode & 0o077).toBe(0);
    }
    expect(Buffer.from((await readFile(keyFile, "utf8")).trim(), "base64url")).toHaveLength(32);
    const second = createKeyFileWrapper(keyFile);
    await expect(second.unwrap(wrapped, CONTEXT)).resolves.toEqual(Buffer.from("secret"));
    // Nothing but the key is left in its folder.
    expect(await readdir(join(dir, "keys"))).toEqual(["master.key"]);
  });

  it.skipIf(process.platform === "win32")(
    "makes the key file 0600 whatever the umask takes away",
    async () => {
      const before = process.umask(0o277);
      try {
        await createKeyFileWrapper(keyFile).wrap(Buffer.from("s"), CONTEXT);
      } finally {
        process.umask(before);
      }
      expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    },
  );

  it("agrees on one key when instances create the file concurrently", async () => {
    const wrappers = Array.from({ length: 8 }, () => createKeyFileWrapper(keyFile));
    const wrapped = await Promise.all(wrappers.map((w) => w.wrap(Buffer.from("s"), CONTEXT)));
    for (const [index, w] of wrappers.entries()) {
      await expect(w.unwrap(wrapped[(index + 1) % wrapped.length] ?? "", CONTEXT)).resolves.toEqual(
        Buffer.from("s"),
      );
    }
  });

  it("reports a key wrapped under another master key", async () => {
    const wrapped = await createKeyFileWrapper(keyFile).wrap(Buffer.from("s"), CONTEXT);
    const other = createKeyFileWrapper(join(dir, "other.key"));
    expect(await failure(other.unwrap(wrapped, CONTEXT))).toBe("wrong-master-key");
  });

  it("never overwrites a key file it cannot read", async () => {
    await writeFile(join(dir, "broken.key"), "not a key\n");
    await expect(
      createKeyFileWrapper(join(dir, "broken.key")).wrap(Buffer.from("s"), CONTEXT),
    ).rejects.toThrow(/does not hold a 32-byte/);
    expect(await readFile(join(dir, "broken.key"), "utf8")).toBe("not a key\n");
    // A key of another length is no master key either.
    await writeFile(join(dir, "short.key"), `${randomBytes(16).toString("base64url")}\n`);
    await expect(
      createKeyFileWrapper(join(dir, "short.key")).wrap(Buffer.from("s"), CONTEXT),
    ).rejects.toThrow(/does not hold a 32-byte/);
  });

  it("reads its key file again after a failed read", async () => {
    const path = join(dir, "later.key");
    await writeFile(path, "not yet a key\n");
    const wrapper = createKeyFileWrapper(path);
    await expect(wrapper.wrap(Buffer.from("s"), CONTEXT)).rejects.toThrow(/does not hold/);
    await writeFile(path, `${randomBytes(32).toString("base64url")}\n`);
    const wrapped = await wrapper.wrap(Buffer.from("s"), CONTEXT);
    await expect(wrapper.unwrap(wrapped, CONTEXT)).resolves.toEqual(Buffer.from("s"));
  });

  it("writes the context canonically", () => {
    expect(canonicalContext({ b: "2", a: "1", "10": "x" })).toBe(
      '[["10","x"],["a","1"],["b","2"]]',
    );
  });
});
