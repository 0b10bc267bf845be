/**
 * A DNS server on this machine's loopback for the tests: it answers TXT questions from the
 * records a test sets, NXDOMAIN for any other name, and SERVFAIL for a name set to fail. Nothing
 * in a test run asks the internet's DNS.
 */
import { createSocket } from "node:dgram";
import * as packet from "dns-packet";

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, as a resolver's server list names it. */
  readonly server: string;
  /** Sets a name's TXT records (each one string); none removes the name. */
  setTxt(name: string, ...values: string[]): void;
  /** Answers the name with SERVFAIL, as a DNS that cannot answer now. */
  failing(name: string): void;
  /** Answers the name again. */
  healthy(name: string): void;
  /** Never answers the name, as a DNS server out of reach. */
  silent(name: string): void;
  close(): Promise<void>;
}

export const startTestDnsServer = async (): Promise<TestDnsServer> => {
  const records = new Map<string, string[]>();
  const failing = new Set<string>();
  const silent = new Set<string>();
  const socket = createSocket("udp4");
  socket.on("message", (message, from) => {
    let query: packet.Packet;
    try {
      query = packet.decode(message);
    } catch {
      return;
    }
    const question = query.questions?.[0];
    const name = question?.name.toLowerCase() ?? "";
    if (silent.has(name)) return;
    const values = records.get(name);
    const answer = packet.encode({
      id: query.id ?? 0,
      type: "response",
      flags:
        packet.AUTHORITATIVE_ANSWER |
        (failing.has(name) ? 2 : values === undefined ? 3 : 0) /* SERVFAIL, NXDOMAIN, NOERROR */,
      questions: question ? [question] : [],
      answers:
        question?.type === "TXT" && values && !failing.has(name)
          ? values.map((value) => ({
              type: "TXT" as const,
              name: question.name,
              ttl: 1,
              class: "IN" as const,
              data: value,
            }))
          : [],
    });
    socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    setTxt(name, ...values) {
      if (values.length === 0) records.delete(name.toLowerCase());
      else records.set(name.toLowerCase(), values);
    },
    failing(name) {
      failing.add(name.toLowerCase());
    },
    healthy(name) {
      failing.delete(name.toLowerCase());
      silent.delete(name.toLowerCase());
    },
    silent(name) {
      silent.add(name.toLowerCase());
    },
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
};
