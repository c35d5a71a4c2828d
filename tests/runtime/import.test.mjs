// `make script DATA="..." FILE="..."`: files and dump folders imported with the engine's
// importer (Engine.importData) before the scripts run. Every fixture is made here: JSON and CSV
// as text, .bson with js-bson, metadata as mongodump writes it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BSON, ObjectId, Long, Decimal128 } from 'bson';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const runner = path.join(root, 'tools', 'run-script.mjs');

function tmpdir() {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pp-import-'));
}

function runScript(args) {
  const r = spawnSync(process.execPath, [runner, ...args], { encoding: 'utf8' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function write(dir, name, content) {
  const file = path.join(dir, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, content);
  return file;
}

test('JSON lines, a CSV and a dump folder are imported before the script runs', () => {
  const dir = tmpdir();
  const orders = write(
    dir,
    'orders.json',
    [
      '{"_id":{"$oid":"5f0c1a2b3c4d5e6f70819203"},"total":{"$numberDecimal":"12.50"},"at":{"$date":"2024-01-02T03:04:05Z"},"qty":{"$numberLong":"3"}}',
      '{"_id":2,"total":7,"at":{"$date":1704164645000}}',
      '',
    ].join('\n'),
  );
  const people = write(dir, 'people.csv', 'name,age,address.city,active\nAda,36,London,true\n"Lovelace, A",3000000000,Paris,false\n');
  const shop = path.join(dir, 'dump', 'shop');
  const products = [
    { _id: 1, sku: 'a', price: 5, tags: ['x', 'y'] },
    { _id: 2, sku: 'b', price: Long.fromNumber(7), tags: [] },
  ];
  write(dir, 'dump/shop/products.bson', Buffer.concat(products.map((d) => BSON.serialize(d))));
  write(
    dir,
    'dump/shop/products.metadata.json',
    JSON.stringify({
      indexes: [
        { v: { $numberInt: '2' }, key: { _id: { $numberInt: '1' } }, name: '_id_' },
        { v: { $numberInt: '2' }, key: { sku: { $numberInt: '1' } }, name: 'sku_1', unique: true },
      ],
      uuid: '0123456789abcdef0123456789abcdef',
      collectionName: 'products',
      type: 'collection',
    }),
  );
  write(dir, 'dump/shop/system.views.bson', BSON.serialize({ _id: 'shop.v' }));
  const check = write(
    dir,
    'check.js',
    `
    const o = db.orders.findOne({ total: NumberDecimal("12.50") });
    print(o._id.toHexString(), o.qty instanceof Long, o.at.toISOString());
    print(db.orders.countDocuments({ at: { $gte: ISODate("2024-01-01") } }));
    const p = db.people.find({}, { _id: 0 }).toArray();
    print(JSON.stringify(p[0]));
    print(p[1].name, p[1].age instanceof Long, p[1].age.toNumber(), p[1].address.city, typeof p[1].active);
    print(db.products.countDocuments(), db.products.getIndexes().map(i => i.name).join(","));
    print(db.getCollectionNames().join(","));
    `,
  );
  const r = runScript([`--data=${orders}`, `--data=${people}`, `--data=${shop}`, check]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    [
      '5f0c1a2b3c4d5e6f70819203 true 2024-01-02T03:04:05.000Z',
      '2',
      '{"name":"Ada","age":36,"address":{"city":"London"},"active":"true"}',
      'Lovelace, A true 3000000000 Paris string',
      '2 _id_,sku_1',
      'orders,people,products',
      '',
    ].join('\n'),
  );
  assert.match(r.stderr, /orders\.json -> test\.orders: 2 document\(s\) imported successfully\. 0 document\(s\) failed to import\./);
  assert.match(r.stderr, /products\.bson -> test\.products: 2 document\(s\) imported successfully\. 0 document\(s\) failed to import\. 1 index\(es\) created\./);
});

test('a whole dump folder gives every database under its own name; the data round-trips to Extended JSON', () => {
  const dir = tmpdir();
  const doc = { _id: new ObjectId('65a1b2c3d4e5f60718293a4b'), d: Decimal128.fromString('1.10'), n: Long.fromNumber(5), when: new Date(0) };
  write(dir, 'dump/a/x.bson', BSON.serialize(doc));
  write(dir, 'dump/b/y.bson', Buffer.concat([BSON.serialize({ _id: 1 }), BSON.serialize({ _id: 2 })]));
  write(dir, 'dump/admin/system.version.bson', BSON.serialize({ _id: 'featureCompatibilityVersion' }));
  const check = write(
    dir,
    'check.js',
    `const a = db.getSiblingDB('a'), c = db.getSiblingDB('c');
     print(db.getMongo().getDBNames(), a.x.countDocuments(), db.getSiblingDB('b').y.countDocuments(), c.x.findOne());
     print(EJSON.stringify(a.x.findOne(), { relaxed: false }));`,
  );
  // Two databases may hold a collection of the same name: each keeps its own.
  write(dir, 'dump/c/x.bson', BSON.serialize({ _id: 9 }));
  const r = runScript([`--data=${path.join(dir, 'dump')}`, check]);
  assert.equal(r.code, 0, r.stderr);
  const [counts, ejson] = r.stdout.trim().split('\n');
  assert.equal(counts, "[ 'a', 'b', 'c' ] 1 2 { _id: 9 }");
  assert.deepEqual(JSON.parse(ejson), JSON.parse(BSON.EJSON.stringify(doc, { relaxed: false })));
  assert.match(r.stderr, /dump\/c\/x\.bson -> c\.x: 1 document\(s\) imported successfully/);
  // One database's folder goes into the database scripts start on.
  const one = runScript([`--data=${path.join(dir, 'dump', 'b')}`, write(dir, 'one.js', 'print(db.y.countDocuments())')]);
  assert.equal(one.stdout.trim(), '2', one.stderr);
});

test('an import error names the file and line (or byte offset), and no script runs', () => {
  const dir = tmpdir();
  const bad = write(dir, 'bad.json', '{"a":1}\n{"a":2}\n{"a": }\n');
  const check = write(dir, 'check.js', 'print("ran")');
  let r = runScript([`--data=${bad}`, check]);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /bad\.json -> test\.bad: 2 document\(s\) imported successfully\. 1 document\(s\) failed to import\./);
  assert.match(r.stderr, /bad\.json:3: invalid JSON: expected value/);

  const good = BSON.serialize({ _id: 1 });
  const truncated = Buffer.concat([good, BSON.serialize({ _id: 2 }).subarray(0, 9)]);
  const dump = write(dir, 'cut.bson', truncated);
  r = runScript([`--data=${dump}`, check]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, new RegExp(`cut\\.bson: at byte ${good.length}: truncated document: its length is 14 bytes, 9 are left`));

  const typed = write(dir, 'typed.csv', 'n.int32(),when.date(2006-01-02)\n1,2024-01-02\n2,yesterday\n');
  r = runScript([`--data=${typed}`, check]);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /typed\.csv:3: type coercion failure in document #1 for column `when`, could not parse token `yesterday` to type date/);
});
