// The tool names the server must list, read from the golden tools/list
// snapshots the Go tests keep: adding a tool is one deliberate change there,
// not a second list to remember here.
import { readdirSync } from 'node:fs';

const dir = new URL('../../internal/mcpserver/__toolsnaps__/', import.meta.url);

export const snapshotToolNames = readdirSync(dir)
  .filter((f) => f.endsWith('.snap'))
  .map((f) => f.slice(0, -'.snap'.length))
  .sort();
