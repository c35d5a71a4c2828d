// Computed pattern audit: 5 000 orders whose stored `total` should equal the sum of
// price x qty over their items; countDocuments with $expr finds the ones that drifted.
let seed = 17;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const orders = [];
for (let i = 0; i < 5000; i++) {
  const items = [];
  const n = 1 + Math.floor(rand() * 5);
  for (let k = 0; k < n; k++) items.push({ sku: `sku${Math.floor(rand() * 500)}`, price: 100 + Math.floor(rand() * 9900), qty: 1 + Math.floor(rand() * 4) });
  let total = items.reduce((s, it) => s + it.price * it.qty, 0);
  if (i % 50 === 7) total += 1; // 2% drifted
  orders.push({ _id: i, customer: `c${i % 700}`, items, total });
}
db.orders.insertMany(orders);
let drifted;
measure(() => {
  drifted = db.orders.countDocuments({
    $expr: { $ne: ['$total', { $sum: { $map: { input: '$items', as: 'it', in: { $multiply: ['$$it.price', '$$it.qty'] } } } }] },
  });
});
print(`drifted=${drifted}`);
