import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import GithubSlugger from "github-slugger";
import { marked, type Token } from "marked";
import { describe, expect, it } from "vitest";

// Every relative link in the README and docs/ leads somewhere: the file exists, and a `#anchor` names
// a heading of it as GitHub spells its anchors. The README points a newcomer at docs/ for everything
// else, so a link that moved with its text and broke is a dead end on the first page they read.

const ROOT = process.cwd();

interface MarkdownFile {
  /** The path from the repository's root, with forward slashes (`docs/http-api.md`). */
  name: string;
  text: string;
}

interface BrokenLink {
  file: string;
  href: string;
  problem: string;
}

/** A link's target that is not a file of this repository (a web address, mail, a page's own route). */
function isExternal(href: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith("//");
}

/** What a heading reads as on the page: GitHub makes its anchor from this text, markup left out. */
function headingText(tokens: Token[]): string {
  return tokens
    .map((token) => {
      if (token.type === "html") return "";
      if ("tokens" in token && token.tokens) return headingText(token.tokens);
      return "text" in token ? String(token.text) : "";
    })
    .join("");
}

/** The anchors GitHub gives a file's headings (a repeated heading gets `-1`, `-2`, … as there). */
function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const anchors = new Set<string>();
  marked.walkTokens(marked.lexer(text), (token) => {
    if (token.type === "heading") anchors.add(slugger.slug(headingText(token.tokens ?? [])));
  });
  return anchors;
}

/** Every link and image target in a file, markdown or inline HTML, leaving code blocks and code spans out. */
function targetsOf(text: string): string[] {
  const targets: string[] = [];
  marked.walkTokens(marked.lexer(text), (token) => {
    if (token.type === "link" || token.type === "image") targets.push(token.href);
    if (token.type === "html") {
      for (const match of String(token.text).matchAll(/\b(?:href|src)\s*=\s*"([^"]*)"/g))
        if (match[1] !== undefined) targets.push(match[1]);
    }
  });
  return targets;
}

/** What is wrong with each relative link of `files`, read against `readFile` (the repository by default). */
function findBrokenLinks(
  files: MarkdownFile[],
  readFile: (name: string) => string | null = readRepositoryFile,
): { checked: number; broken: BrokenLink[] } {
  const broken: BrokenLink[] = [];
  let checked = 0;
  for (const file of files) {
    for (const href of targetsOf(file.text)) {
      if (isExternal(href)) continue;
      checked += 1;
      const [target = "", anchor] = href.split("#", 2);
      const name = target
        ? path.posix.normalize(path.posix.join(path.posix.dirname(file.name), decodeURI(target)))
        : file.name;
      const problem = (): string | null => {
        if (name.startsWith("../")) return "points outside the repository";
        const content = readFile(name);
        if (content === null) return `${name} does not exist`;
        if (anchor === undefined) return null;
        if (!name.endsWith(".md")) return `#${anchor} on a file that is not markdown`;
        return anchorsOf(content).has(decodeURIComponent(anchor))
          ? null
          : `${name} has no heading whose anchor is #${anchor}`;
      };
      const found = problem();
      if (found) broken.push({ file: file.name, href, problem: found });
    }
  }
  return { checked, broken };
}

/** A file's text, "" for a directory (a link to a folder is fine), null when nothing is there. */
function readRepositoryFile(name: string): string | null {
  const full = path.join(ROOT, name);
  if (!existsSync(full)) return null;
  return statSync(full).isDirectory() ? "" : readFileSync(full, "utf8");
}

function repositoryDocs(): MarkdownFile[] {
  const docs = readdirSync(path.join(ROOT, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => `docs/${name.split(path.sep).join("/")}`);
  return ["README.md", ...docs].map((name) => ({ name, text: readFileSync(path.join(ROOT, name), "utf8") }));
}

/**
 * The repository paths a file names in code, spans and blocks alike (`lib/http/api-route.ts`, a test in
 * an `npx vitest run` line): the folders of the code, not docs/ (whose files the links reach, and whose
 * name scenario workspaces reuse in examples).
 */
function codePathsOf(text: string): string[] {
  const paths: string[] = [];
  const inCode =
    /(?<![\w./@-])((?:app|components|lib|db|e2e|bin|bench|\.ci|patches)\/[\w.[\]()/@+-]*\.(?:tsx|ts|mts|mjs|cjs|json|md|sh|sql|ya?ml|patch|css))(?![\w/-])/g;
  marked.walkTokens(marked.lexer(text), (token) => {
    if (token.type !== "codespan" && token.type !== "code") return;
    for (const match of String(token.text).matchAll(inCode)) if (match[1]) paths.push(match[1]);
  });
  return paths;
}

describe("links in the README and docs/", () => {
  it("all lead to a file that exists and, with #anchor, to one of its headings", () => {
    const { checked, broken } = findBrokenLinks(repositoryDocs());
    expect(broken).toEqual([]);
    // The README alone links every doc: a count this low means the links were not found at all.
    expect(checked).toBeGreaterThan(20);
  });

  it("reports a missing file, a missing heading and a link out of the repository, and accepts GitHub's anchors", () => {
    const files: Record<string, string> = {
      "README.md": "# Tool Playground\n\n## Quick start\n\n## `npm test`, and how long\n\n## Quick start\n",
      "docs/a.md": [
        "[ok](../README.md#quick-start) [twice](../README.md#quick-start-1)",
        "[code heading](../README.md#npm-test-and-how-long) [self](#a-heading) [folder](.)",
        "[gone](missing.md) [no heading](../README.md#quick-starts) [out](../../etc/passwd)",
        "[web](https://example.com/x.md) `[in code](nowhere.md)`",
        '<img src="missing.png" alt="">',
        "",
        "## A heading",
      ].join("\n"),
    };
    const readFile = (name: string) => (name === "docs" ? "" : (files[name] ?? null));
    const { broken } = findBrokenLinks(
      Object.entries(files).map(([name, text]) => ({ name, text })),
      readFile,
    );
    expect(broken.map((link) => link.href)).toEqual([
      "missing.md",
      "../README.md#quick-starts",
      "../../etc/passwd",
      "missing.png",
    ]);
  });
});

describe("file paths named in the README's and docs' code", () => {
  it("all exist, so a newcomer who opens one or runs a command that names one finds it", () => {
    const missing = repositoryDocs().flatMap((file) =>
      codePathsOf(file.text)
        .filter((name) => readRepositoryFile(name) === null)
        .map((name) => `${file.name}: ${name}`),
    );
    expect(missing).toEqual([]);
  });

  it("finds paths in code spans and blocks, not in prose, links or docs/ examples", () => {
    const text = [
      "See `lib/http/api-route.ts` and `app/(signed-in)/runs/[id]/page.tsx#L3`, not lib/prose.ts.",
      "[a link](lib/linked.ts) `docs/a.md` `app/api/**/route.ts` `e2e/demos/<spec>`",
      "",
      "```sh",
      "npx vitest run db/x.test.ts bench/y.ts",
      "```",
    ].join("\n");
    expect(codePathsOf(text)).toEqual([
      "lib/http/api-route.ts",
      "app/(signed-in)/runs/[id]/page.tsx",
      "db/x.test.ts",
      "bench/y.ts",
    ]);
  });
});
