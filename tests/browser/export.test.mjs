// Browser test of the session export (make dist, Debian's Chromium): the script reads as mongosh
// prints documents (ObjectId("…"), ISODate("…"), NumberLong("…"), ...), and run headless by the
// runner behind `make script` (tools/run-script.mjs) it gives back byte-identical documents, for
// every BSON type a script can write.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { serve } from "./server.mjs";
import { DIST, launch } from "./browser.mjs";
import { createShellContext, runFile } from "../../tools/run-script.mjs";

let server;
let browser;

before(async () => {
  server = await serve(DIST, { prefix: "/sub/path" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// Values of every type of the BSON corpus that a script can write, at their edges.
const SCRIPT = String.raw`
db.t.insertMany([
  {
    _id: 1,
    d: [Double(1), Double(-0), Double(0), 0.5, 1e300, -1e-300, NaN, Infinity, -Infinity, Double(2147483647), Double(-2147483648), 2147483648, 5e-324, 1.7976931348623157e308],
    i: [0, -1, 2147483647, -2147483648, NumberInt(7)],
    l: [NumberLong("0"), NumberLong("9223372036854775807"), NumberLong("-9223372036854775808"), NumberLong("9007199254740993")],
    dec: [NumberDecimal("1.10"), NumberDecimal("-0"), NumberDecimal("-0E+3"), NumberDecimal("NaN"), NumberDecimal("-Infinity"), NumberDecimal("9.999999999999999999999999999999999E+6144"), NumberDecimal("1E-6176")],
    dt: [new Date(-1), new Date(0), new Date(-62167219200000), new Date(253402300800000), new Date(-62167219200001), new Date(8640000000000000), new Date(-8640000000000000), ISODate("1900-01-01T00:00:00.123Z")],
    bin: [BinData(0, "AQID"), BinData(0, ""), BinData(1, "AQ=="), BinData(2, "CQg="), BinData(3, "AAECAwQFBgcICQoLDA0ODw=="), UUID("00010203-0405-0607-0809-0a0b0c0d0e0f"), BinData(4, "AQI="), MD5("000102030405060708090a0b0c0d0e0f"), BinData(6, "AQ=="), BinData(7, "AQ=="), BinData(8, "AQ=="), BinData(128, "/w==")],
    re: [/a\/b/, /^x$/ims, BSONRegExp("a/b\n", ""), BSONRegExp("^x$", "ilmsux")],
    code: Code("function () { return '</script>'; }"),
    cws: Code("x", { x: 1, y: [Double(1)] }),
    ts: [Timestamp({ t: 0, i: 0 }), Timestamp({ t: 4294967295, i: 4294967295 })],
    k: [MinKey(), MaxKey()],
    sym: BSONSymbol("s"),
    n: null,
    b: [true, false],
    oid: ObjectId("010101010101010101010101"),
    p: { ["__proto__"]: { x: 1 }, "$date": "2020-01-01T00:00:00Z" },
    nest: new Map([["a", [[[{ b: { c: [] } }], []]]], ["__proto__", { x: 1 }], ["$date", "2020-01-01T00:00:00Z"], ["$oid", 1], ["", ""], ["a.b", 1], ["b", 1], ["1", 2], ["0", 0], ["😀\u2028</script>\"\\", "é\u0000"]]),
  },
  { _id: NumberLong(2), "0": "a", "9": "b", "10": "c", z: {} },
  { _id: ISODate("2024-01-01"), empty: [] },
]);
db.t.updateOne({ _id: 1 }, { $set: { "nest.added": NumberDecimal("0.1"), "ts.0": Timestamp({ t: 1, i: 2 }) } });
print("all types written");
`;

test("the export reads as mongosh prints documents and replays to byte-identical documents", { timeout: 300_000 }, async () => {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(server.url);
  await page.waitForFunction(() => window.ppReady === true, null, { timeout: 120_000 });
  await page.locator("#script-editor .cm-content").click();
  await page.keyboard.press("ControlOrMeta+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(SCRIPT);
  await page.locator("#run").click();
  await page.locator("pre.output .line").first().waitFor({ timeout: 60_000 });
  assert.deepEqual((await page.locator("pre.output .line").allInnerTexts()).map((t) => t.trim()), ["all types written"]);

  // The collection as the playground stores it: its .bson dump, byte for byte.
  await page.getByRole("tab", { name: "Data" }).click();
  await page.locator("button.coll-name", { hasText: /^t$/ }).click();
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator(".export-data button[data-format=bson]").click()]);
  const stored = await readFile(await download.path());
  assert.ok(stored.length > 1000, `${stored.length}`);

  await page.getByRole("tab", { name: "Export & share" }).click();
  const script = await page.locator("#export-script").innerText();
  for (const form of ['ObjectId("010101010101010101010101")', 'ISODate("1969-12-31T23:59:59.999Z")', 'NumberLong("9223372036854775807")', 'NumberDecimal("1.10")', "Double(-0)", "Double(1)", 'UUID("00010203-0405-0607-0809-0a0b0c0d0e0f")', "Timestamp({ t: 0, i: 0 })", "MinKey()", 'BSONRegExp("a\\\\/b", "")', '["__proto__"]: { "x": 1 }', '"$date": "2020-01-01T00:00:00Z"']) {
    assert.ok(script.includes(form), `${form} in\n${script}`);
  }
  assert.doesNotMatch(script, /EJSON\.parse|Object\.fromEntries/);
  assert.doesNotMatch(script, /<\/script>/);

  // Run headless, as `make script` runs it: the same bytes.
  const { context: shell, engine } = createShellContext();
  const report = await runFile(shell, script, "session.js", 60_000);
  assert.equal(report.error, null, JSON.stringify(report.error));
  const replayed = Buffer.from(engine.exportData("test", "t", "bson"));
  assert.ok(replayed.equals(stored), `${replayed.length} bytes replayed, ${stored.length} stored`);
  assert.deepEqual(errors, []);
  await context.close();
});
