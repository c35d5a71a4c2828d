// Subset pattern: 1 000 products, each keeping its 10 most recent reviews embedded (~1.6 KB of
// BSON); 1 000 reads of one product page by _id.
let seed = 13;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const products = [];
for (let p = 0; p < 1000; p++) {
  const recentReviews = [];
  for (let r = 0; r < 10; r++) {
    recentReviews.push({ user: `user${Math.floor(rand() * 1000)}`, rating: 1 + Math.floor(rand() * 5), text: 'Does what it says on the box, would buy again.'.slice(0, 20 + Math.floor(rand() * 20)) });
  }
  products.push({ _id: p, name: `Product ${p}`, price: Math.round(rand() * 10000) / 100, tags: ['kitchen', 'sale'], recentReviews });
}
db.products.insertMany(products);
let pages = 0;
measure(() => {
  for (let i = 0; i < 1000; i++) {
    const doc = db.products.findOne({ _id: (i * 7919) % 1000 });
    pages += doc.recentReviews.length;
  }
});
print(`reviews shown=${pages}`);
