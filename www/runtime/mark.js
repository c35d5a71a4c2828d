// The mark of the objects a command returned (mongosh's addCustomInspect, see format.js): they
// print at full depth.
//
// mongosh gives each such object its own hidden `inspect.custom` property. Defining one on every
// object of every reply is slow (a property definition per object) and changes each object's
// shape; remembering them in a WeakSet cost a third of a large find().toArray() (each entry an
// ephemeron the collector walks). So each gets a private class field instead (`#server`, added by
// the return-override of a base constructor): invisible to the script (no key, no symbol, not
// copied by a spread or Object.assign, as mongosh's non-enumerable property is not), set and
// tested as fast as an ordinary field. One non-enumerable `inspect.custom` on Object.prototype
// (installed at the first print) formats the marked objects at full depth and hands every other
// object back to the default formatting (util.inspect formats the value itself when its custom
// function returns it).
class Receiver {
  constructor(o) {
    return o;
  }
}
class ServerMark extends Receiver {
  #server = true;
  static has(o) {
    return #server in o;
  }
  static add(o) {
    if (#server in o) return;
    try {
      new ServerMark(o);
    } catch {
      // an object that cannot take the field keeps its default form
    }
  }
}

/** Marks `o` as returned by a command (once). */
export function markServer(o) {
  ServerMark.add(o);
}

/** Marks `o`, an object or array just made (so neither marked nor frozen), as returned by a
 * command: `markServer` without its checks. */
export function markNew(o) {
  new ServerMark(o);
}

/** Whether `o` was marked by `markServer`. */
export function isServer(o) {
  return ServerMark.has(o);
}
