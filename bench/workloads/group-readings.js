// $match + $group + $sort over 20 000 readings: per sensor count, average and maximum of the
// readings at or above 10, highest average first.
let seed = 19;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const readings = [];
for (let i = 0; i < 20000; i++) {
  readings.push({ sensorId: `s${String(i % 50).padStart(2, '0')}`, t: new Date(Date.UTC(2024, 0, 1) + i * 1000), v: Math.round(rand() * 4000) / 100, ok: rand() > 0.1 });
}
db.readings.insertMany(readings);
let out;
measure(() => {
  out = db.readings.aggregate([
    { $match: { v: { $gte: 10 }, ok: true } },
    { $group: { _id: '$sensorId', n: { $sum: 1 }, avg: { $avg: '$v' }, max: { $max: '$v' } } },
    { $sort: { avg: -1, _id: 1 } },
  ]).toArray();
});
print(`groups=${out.length} top=${out[0]._id} n=${out[0].n} avg=${out[0].avg.toFixed(3)} max=${out[0].max}`);
