// Bucket pattern: 20 000 sensor readings upserted into hourly buckets capped at 200 readings
// (filter { sensorId, hour, count: { $lt: 200 } }, $push + $inc + $setOnInsert, upsert), sent as
// bulkWrite batches of 1 000. 20 sensors, one reading every 10 s each.
let seed = 7;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const SENSORS = 20;
const READINGS = 20000;
const start = Date.UTC(2024, 0, 1);
db.buckets.createIndex({ sensorId: 1, hour: 1 });
const ops = [];
for (let i = 0; i < READINGS; i++) {
  const sensorId = `s${String(i % SENSORS).padStart(2, '0')}`;
  const ms = start + Math.floor(i / SENSORS) * 10000;
  const t = new Date(ms);
  const hour = new Date(ms - (ms % 3600000));
  const v = Math.round(rand() * 1000) / 10;
  ops.push({
    updateOne: {
      filter: { sensorId, hour, count: { $lt: 200 } },
      update: { $push: { readings: { t, v } }, $inc: { count: 1, sum: v }, $setOnInsert: { unit: 'C', first: t } },
      upsert: true,
    },
  });
}
measure(() => {
  for (let i = 0; i < ops.length; i += 1000) db.buckets.bulkWrite(ops.slice(i, i + 1000));
});
const buckets = db.buckets.find({}).toArray();
const total = buckets.reduce((n, b) => n + b.count, 0);
const full = buckets.filter((b) => b.count === 200 && b.readings.length === 200).length;
print(`buckets=${buckets.length} readings=${total} full=${full}`);
