// Extended reference pattern: 5 000 orders each hold a copy of their store's name and city;
// the store renamed, one updateMany refreshes the 2 500 copies that reference it.
const orders = [];
for (let i = 0; i < 5000; i++) {
  const s = i % 2;
  orders.push({
    _id: i,
    date: new Date(Date.UTC(2024, 0, 1) + i * 60000),
    store: { _id: s, name: s === 0 ? 'Harbour Street' : 'Old Mill', city: s === 0 ? 'Leith' : 'Perth' },
    amount: (i * 37) % 1000,
  });
}
db.orders.insertMany(orders);
db.orders.createIndex({ 'store._id': 1 });
let res;
measure(() => {
  res = db.orders.updateMany({ 'store._id': 0 }, { $set: { 'store.name': 'Harbour Street Market', 'store.city': 'Edinburgh' } });
});
print(`matched=${res.matchedCount} modified=${res.modifiedCount} renamed=${db.orders.countDocuments({ 'store.name': 'Harbour Street Market' })}`);
