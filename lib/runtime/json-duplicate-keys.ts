import { visit } from "jsonc-parser";

/** A key written twice in one object: the key, and where that object is (keys and indexes from the root). */
export interface DuplicateKey {
  key: string;
  path: Array<string | number>;
}

/**
 * The first key written twice in one object of JSON text (`{"to":"a","to":"b"}`, `"\u0074o"` included),
 * or null. `JSON.parse` keeps the last value and other parsers the first, so text with one means two
 * things: the rules and the approver would read one value and the tool that runs it might use the
 * other. Call it on text that parsed and whose depth was checked: the scan recurses per level.
 */
export function findDuplicateKey(text: string): DuplicateKey | null {
  const keysOfOpenObjects: Array<Set<string>> = [];
  let found: DuplicateKey | null = null;
  visit(text, {
    onObjectBegin() {
      keysOfOpenObjects.push(new Set());
    },
    onObjectProperty(key, _offset, _length, _line, _column, pathSupplier) {
      const keys = keysOfOpenObjects.at(-1);
      if (!keys) return;
      if (keys.has(key) && found === null) found = { key, path: pathSupplier() };
      keys.add(key);
    },
    onObjectEnd() {
      keysOfOpenObjects.pop();
    },
  });
  return found;
}
