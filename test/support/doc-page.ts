/** A page of docs/ as the tests that hold it to the code read it. */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export interface DocPage {
  readonly text: string;
  /** The fenced code block that follows a `<!-- verify:<language> -->` marker. */
  snippet(language: string): string;
}

/** `docs/<name>`, read once. */
export const docPage = (name: string): DocPage => {
  const text = readFileSync(fileURLToPath(new URL(`../../docs/${name}`, import.meta.url)), "utf8");
  return {
    text,
    snippet(language) {
      const marker = `<!-- verify:${language} -->`;
      const at = text.indexOf(marker);
      const match = /```[a-z]+\n([\s\S]*?)```/.exec(text.slice(at));
      if (at < 0 || !match?.[1]) throw new Error(`docs/${name} lacks ${marker}`);
      return match[1];
    },
  };
};
