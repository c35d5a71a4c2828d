// Sessions and transactions as mongosh drives them (www/runtime/session.js) on the engine run as a
// one-member replica set: commit and abort, reads inside and outside, withTransaction (its value,
// its abort on an error), the driver's own errors for a transaction used out of order, and what
// the write log keeps (only committed writes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { run, out } from './helpers.mjs';

const SETUP = `
db.acct.insertMany([{ _id: 'a', bal: 100 }, { _id: 'b', bal: 0 }]);
const session = db.getMongo().startSession();
const acct = session.getDatabase('test').acct;
`;

test('transactions: a transfer is seen inside at once, outside only after commit; abort leaves nothing', async () => {
  const text = await out(`${SETUP}
    session.startTransaction();
    acct.updateOne({ _id: 'a' }, { $inc: { bal: -30 } });
    acct.updateOne({ _id: 'b' }, { $inc: { bal: 30 } });
    print(acct.find().toArray().map((d) => d.bal), db.acct.find().toArray().map((d) => d.bal), session.inTransaction());
    session.commitTransaction();
    print(db.acct.find().toArray().map((d) => d.bal), session.inTransaction());
    session.startTransaction();
    acct.insertOne({ _id: 'c' });
    session.getDatabase('other').x.insertOne({ _id: 1 });
    session.abortTransaction();
    print(db.acct.countDocuments(), db.getMongo().getDBNames());
  `);
  assert.equal(text, ['[ 70, 30 ] [ 100, 0 ] true', '[ 70, 30 ] false', "2 [ 'test' ]"].join('\n'));
});

test('transactions: withTransaction commits and returns, or aborts everything and throws', async () => {
  const r = await run(`${SETUP}
    print(session.withTransaction(() => { acct.updateOne({ _id: 'a' }, { $inc: { bal: -1 } }); return 'moved'; }));
    try {
      session.withTransaction(() => { acct.insertOne({ _id: 'c' }); acct.insertOne({ _id: 'a' }); });
    } catch (e) {
      print(e.name, e.codeName, e.hasErrorLabel('TransientTransactionError'));
    }
    print(db.acct.find().toArray());
  `);
  assert.equal(r.error, null, r.error?.uncaught);
  assert.equal(r.text, ['moved', 'MongoServerError DuplicateKey false', "[ { _id: 'a', bal: 99 }, { _id: 'b', bal: 0 } ]"].join('\n'));
});

test('transactions: the server refuses what a transaction may not do; the driver what is out of order', async () => {
  const r = await run(`${SETUP}
    session.startTransaction();
    try { acct.drop(); } catch (e) { print(e.codeName, e.message); }
    try { session.commitTransaction(); } catch (e) { print(e.codeName, e.message, e.errorLabels); }
    for (const f of [() => session.abortTransaction(), () => session.commitTransaction()]) {
      try { f(); } catch (e) { print(e.name, e.message); }
    }
    const fresh = db.getMongo().startSession();
    try { fresh.commitTransaction(); } catch (e) { print(e.name, e.message); }
    fresh.startTransaction();
    try { fresh.startTransaction(); } catch (e) { print(e.name, e.message); }
    // A write outside to what the open transaction wrote ends it: its commit is refused.
    fresh.getDatabase('test').acct.insertOne({ _id: 'x' });
    db.acct.insertOne({ _id: 'y' });
    try { fresh.commitTransaction(); } catch (e) { print(e.codeName, e.errorLabels); }
    print(db.acct.find().toArray().map((d) => d._id));
  `);
  assert.equal(r.error, null, r.error?.uncaught);
  assert.deepEqual(r.text.split('\n'), [
    "OperationNotSupportedInTransaction Cannot run 'drop' in a multi-document transaction.",
    // The refused drop never started the transaction on the server.
    "NoSuchTransaction Given transaction number 1 does not match any in-progress transactions. The active transaction number is -1 [ 'TransientTransactionError' ]",
    'MongoTransactionError Cannot call abortTransaction after calling commitTransaction',
    // A second commit is a retry, sent again.
    'MongoServerError Given transaction number 1 does not match any in-progress transactions. The active transaction number is -1',
    'MongoTransactionError No transaction started',
    'MongoTransactionError Transaction already in progress',
    "NoSuchTransaction [ 'TransientTransactionError' ]",
    "[ 'a', 'b', 'y' ]",
  ]);
});
