// The mongosh snippets of the other seed article (../shared/seeds/000_*.txt), read at test time.
//
// What counts as a mongosh snippet, and how it is run:
// - a document written on its own (a line "{" through the next line "}") is what a reader would
//   insert: it runs as `db.snippets.insertOne(<document>)`;
// - a `db.` statement (from a line starting "db." to the first line ending ";") runs as written;
// - everything else is Mongoose or Node driver code (schemas, Model.find...) and is not run.
// As written, the article's placeholders are not valid mongosh: `ObjectId("...")` and
// `ObjectId("user-1")` throw BSONError in mongosh as here, and `items: [...]` is a SyntaxError.
// The test checks exactly that, then runs each snippet once more with the placeholders filled in
// (`ObjectId("<not hex>")` -> `ObjectId()`, `[...]` -> `[]`) and checks that every document
// comes back from the server equal to what was inserted (assert.deepStrictEqual in the script)
// and that the aggregation runs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { run, sharedDir } from './helpers.mjs';

export function extractSnippets(text) {
  const lines = text.split('\n');
  const units = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] === '{') {
      const end = lines.indexOf('}', i + 1);
      if (end < 0) break;
      units.push({ kind: 'document', line: i + 1, code: lines.slice(i, end + 1).join('\n') });
      i = end;
    } else if (lines[i].startsWith('db.')) {
      let end = i;
      while (end < lines.length && !lines[end].trimEnd().endsWith(';')) end++;
      units.push({ kind: 'statement', line: i + 1, code: lines.slice(i, end + 1).join('\n') });
      i = end;
    }
  }
  return units;
}

const text = fs.readFileSync(path.join(sharedDir(), 'seeds', '000_bfb25052d4a7262a.txt'), 'utf8');
const units = extractSnippets(text);
const BAD_OID = 'input must be a 24 character hex string, 12 byte Uint8Array, or an integer';

function asWritten(unit) {
  return unit.kind === 'document' ? `db.snippets.insertOne(\n${unit.code}\n);\n` : `${unit.code}\n`;
}

function repaired(unit) {
  const code = unit.code.replace(/ObjectId\("(?![0-9a-fA-F]{24}")[^"]*"\)/g, 'ObjectId()').replace(/\[\.\.\.\]/g, '[]');
  if (unit.kind === 'document') {
    return `const doc = (\n${code}\n);\ndb.snippets.insertOne(doc);\nassert.deepStrictEqual(db.snippets.findOne({ _id: doc._id }), doc);\nprint('round trip ok');\n`;
  }
  return `const cursor = ${code.replace(/;\s*$/, '')};\nprint(EJSON.stringify(cursor.toArray()));\n`;
}

test('snippets: the article\'s mongosh snippets are found', () => {
  assert.equal(units.filter((u) => u.kind === 'document').length, 14);
  assert.deepEqual(units.filter((u) => u.kind === 'statement').map((u) => u.code.split('\n')[0]), ['db.reviews.aggregate([']);
});

for (const unit of units) {
  const label = `${unit.kind} at line ${unit.line}`;
  test(`snippets: ${label} as written fails as in mongosh`, async () => {
    const r = await run([{ name: `snippet-${unit.line}.js`, code: asWritten(unit) }]);
    assert.ok(r.error, 'the placeholder must fail');
    if (unit.code.includes('[...]')) {
      assert.equal(r.error.name, 'SyntaxError');
    } else {
      assert.equal(r.error.name, 'BSONError');
      assert.equal(r.error.message, BAD_OID);
    }
  });

  test(`snippets: ${label} with its placeholders filled in runs`, async () => {
    const r = await run([{ name: `snippet-${unit.line}.js`, code: repaired(unit) }]);
    assert.equal(r.error, null, r.error ? `${r.error.name}: ${r.error.message} (line ${r.error.line})` : '');
    assert.equal(r.text, unit.kind === 'document' ? 'round trip ok' : '[]');
  });
}
