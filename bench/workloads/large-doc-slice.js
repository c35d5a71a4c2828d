// Subset pattern, the anti-pattern side: one product holding all 10 000 of its reviews (~2.16 MB
// of BSON), read 1 000 times with a `$slice: -5` projection (the five most recent reviews).
let seed = 11;
const rand = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
const words = ['great', 'sturdy', 'cheap', 'arrived', 'late', 'broke', 'love', 'it', 'would', 'buy', 'again', 'meh', 'perfect', 'fit'];
const sentence = (n) => Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(' ');
const reviews = [];
for (let i = 0; i < 10000; i++) {
  reviews.push({
    reviewId: i,
    user: `user${String(Math.floor(rand() * 100000)).padStart(6, '0')}`,
    rating: 1 + Math.floor(rand() * 5),
    date: new Date(Date.UTC(2020, 0, 1) + i * 3600000),
    title: sentence(4).padEnd(32, '.').slice(0, 32),
    text: sentence(30).padEnd(104, '.').slice(0, 104),
  });
}
db.products.insertOne({ _id: 1, name: 'Ceramic pour-over kettle', price: 49.5, reviews });
let last;
measure(() => {
  for (let i = 0; i < 1000; i++) last = db.products.findOne({ _id: 1 }, { name: 1, price: 1, reviews: { $slice: -5 } });
});
print(`reviews=${last.reviews.length} first=${last.reviews[0].reviewId} name=${last.name}`);
