// A write a collection's validator refuses: the MongoServerError (or the bulk write's WriteError)
// carries the server's errInfo, whose `details` say which rule failed, and a script prints it as
// mongosh prints any document.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { out } from './helpers.mjs';

const SETUP = `
  db.createCollection('docs', { validator: { $jsonSchema: {
    bsonType: 'object', required: ['title', 'rev'],
    properties: { rev: { bsonType: 'int', description: 'revision number' } } } } });
`;

test('validation: insertOne refused with errInfo.details, printed as mongosh prints it', async () => {
  const text = await out(`${SETUP}
    try { db.docs.insertOne({ _id: 1, title: 'a', rev: 'x' }); } catch (e) {
      print(e.name, e.code, e.message);
      printjson(e.errInfo);
    }
  `);
  assert.equal(
    text,
    `MongoServerError 121 Document failed validation
{
  failingDocumentId: 1,
  details: {
    operatorName: '$jsonSchema',
    schemaRulesNotSatisfied: [
      {
        operatorName: 'properties',
        propertiesNotSatisfied: [
          {
            propertyName: 'rev',
            description: 'revision number',
            details: [
              {
                operatorName: 'bsonType',
                specifiedAs: {
                  bsonType: 'int'
                },
                reason: 'type did not match',
                consideredValue: 'x',
                consideredType: 'string'
              }
            ]
          }
        ]
      }
    ]
  }
}`,
  );
});

test('validation: bulk writes and updates carry errInfo.details of the document they wrote', async () => {
  const text = await out(`${SETUP}
    try { db.docs.insertMany([{ _id: 2, title: 'b', rev: 1 }, { _id: 3, rev: 2 }]); } catch (e) {
      const w = e.writeErrors[0];
      print(e.name, w.index, w.code, w.errInfo.failingDocumentId, JSON.stringify(w.errInfo.details.schemaRulesNotSatisfied));
    }
    try { db.docs.updateOne({ _id: 2 }, { $set: { rev: 2.5 } }); } catch (e) {
      const rule = e.errInfo.details.schemaRulesNotSatisfied[0].propertiesNotSatisfied[0].details[0];
      print(e.name, e.errInfo.failingDocumentId, rule.operatorName, rule.consideredValue, rule.consideredType);
    }
    print(db.docs.countDocuments(), db.docs.findOne({ _id: 2 }).rev);
  `);
  assert.equal(
    text,
    [
      'MongoBulkWriteError 1 121 3 [{"operatorName":"required","specifiedAs":{"required":["title","rev"]},"missingProperties":["title"]}]',
      'MongoServerError 2 bsonType 2.5 double',
      '1 1',
    ].join('\n'),
  );
});
