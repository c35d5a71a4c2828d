// The global `db`: mongosh's Database (a Proxy: `db.<name>` is a collection) over the engine,
// which holds any number of databases; `db` starts on "test", mongosh's default, and
// `db.getSiblingDB(name)` (or `db.getMongo().getDB(name)`) reaches the others.
import { addCustomInspect, asPrintable, shellApiType } from './format.js';
import { Collection, isValidCollectionName } from './collection.js';
import { AggregationCursor } from './cursor.js';
import { MongoshInvalidInputError, MongoshUnimplementedError, CommonErrors, assertArgsDefinedType } from './errors.js';

/** mongosh's check of a database name (`Mongo._getDb`); `method` names the caller. */
export function assertDbName(name, method) {
  assertArgsDefinedType([name], ['string'], method);
  if (!name.trim()) throw new MongoshInvalidInputError('Database name cannot be empty.', CommonErrors.InvalidArgument);
}

export class Database {
  /** `session`: the ClientSession whose getDatabase made this one (its commands are the session's). */
  constructor(shell, name = 'test', session = null) {
    this._shell = shell;
    this._name = name;
    this._session = session;
    this._sessionClient = session ? shell.client.forSession(name, session) : null;
    this._collections = new Map();
    const proxy = new Proxy(this, {
      get(target, prop, receiver) {
        if (prop in target) return Reflect.get(target, prop, receiver);
        if (typeof prop !== 'string' || prop.startsWith('_') || prop === 'then' || !isValidCollectionName(prop)) return undefined;
        return target.getCollection(prop);
      },
    });
    this._proxy = proxy;
    return proxy;
  }

  get _client() {
    return this._sessionClient ?? this._shell.client.forDb(this._name);
  }

  get [shellApiType]() {
    return 'Database';
  }

  [asPrintable]() {
    return this._name;
  }

  toString() {
    return this._name;
  }

  getName() {
    return this._name;
  }

  getMongo() {
    return this._shell.mongo;
  }

  getSiblingDB(name) {
    assertArgsDefinedType([name], ['string'], 'Database.getSiblingDB');
    return this._session ? this._session.getDatabase(name) : this._shell.getDb(name);
  }

  getCollection(name) {
    assertArgsDefinedType([name], ['string'], 'Database.getCollection');
    if (!isValidCollectionName(name)) {
      throw new MongoshInvalidInputError(`Invalid collection name: ${name}`, CommonErrors.InvalidArgument);
    }
    let coll = this._collections.get(name);
    if (!coll) {
      coll = new Collection(this._shell, this._proxy, name);
      this._collections.set(name, coll);
    }
    return coll;
  }

  _listCollections(filter = {}, options = {}) {
    const reply = this._client.command({ listCollections: 1, filter, ...options });
    return addCustomInspect([...(reply.cursor?.firstBatch ?? [])]);
  }

  getCollectionInfos(filter = {}, options = {}) {
    return this._listCollections(filter, options);
  }

  getCollectionNames() {
    return this._listCollections({}, { nameOnly: true }).map((c) => c.name);
  }

  createCollection(name, options = {}) {
    assertArgsDefinedType([name], ['string'], 'Database.createCollection');
    this._client.command({ create: name, ...options });
    return { ok: 1 };
  }

  createView(name, source, pipeline, options = {}) {
    this._client.command({ create: name, viewOn: source, pipeline, ...options });
    return { ok: 1 };
  }

  dropDatabase() {
    return addCustomInspect(this._client.command({ dropDatabase: 1 }));
  }

  stats(scaleOrOptions = 1) {
    const options = typeof scaleOrOptions === 'number' ? { scale: scaleOrOptions } : scaleOrOptions;
    return addCustomInspect(this._client.command({ dbStats: 1, ...options }));
  }

  runCommand(cmd, options = {}) {
    assertArgsDefinedType([cmd], [['string', 'object']], 'Database.runCommand');
    const doc = typeof cmd === 'string' ? { [cmd]: 1, ...options } : cmd;
    return addCustomInspect(this._client.command(doc));
  }

  adminCommand(cmd) {
    return this._shell.getDb('admin').runCommand(cmd);
  }

  aggregate(pipeline = [], options = {}) {
    assertArgsDefinedType([pipeline], [true], 'Database.aggregate');
    const { explain, ...rest } = options;
    const cursor = new AggregationCursor(this, null, pipeline, rest);
    if (explain) return cursor.explain(explain === true ? 'queryPlanner' : explain);
    if (pipeline.some((stage) => stage && typeof stage === 'object' && ('$out' in stage || '$merge' in stage))) cursor.hasNext();
    return cursor;
  }

  listCommands() {
    return addCustomInspect(this._client.command({ listCommands: 1 }));
  }

  // ---- server information, as mongosh asks the server (a standalone 8.0) ---------------------

  hello() {
    return addCustomInspect(this._client.command({ hello: 1 }));
  }

  isMaster() {
    const result = this._client.command({ isMaster: 1 });
    result.isWritablePrimary = result.ismaster;
    return addCustomInspect(result);
  }

  serverBuildInfo() {
    return addCustomInspect(this._client.command({ buildInfo: 1 }));
  }

  version() {
    return this._client.command({ buildInfo: 1 }).version;
  }

  serverBits() {
    return this._client.command({ buildInfo: 1 }).bits;
  }

  serverStatus(opts = {}) {
    return addCustomInspect(this._client.command({ serverStatus: 1, ...opts }));
  }
}

// mongosh's other Database methods: never collections (`db.hello` was one). Those the playground
// has no server for (users, roles, replication, sharding, profiling, ...) say so when called.
const UNSUPPORTED = [
  'auth', 'logout', 'createUser', 'updateUser', 'changeUserPassword', 'dropUser', 'dropAllUsers', 'grantRolesToUser',
  'revokeRolesFromUser', 'getUser', 'getUsers', 'createRole', 'updateRole', 'dropRole', 'dropAllRoles', 'grantRolesToRole',
  'revokeRolesFromRole', 'grantPrivilegesToRole', 'revokePrivilegesFromRole', 'getRole', 'getRoles', 'createEncryptedCollection',
  'currentOp', 'killOp', 'shutdownServer', 'fsyncLock', 'fsyncUnlock', 'hostInfo', 'serverCmdLineOpts', 'rotateCertificates',
  'printCollectionStats', 'getProfilingStatus', 'setProfilingLevel', 'setLogLevel', 'getLogComponents', 'commandHelp',
  'getReplicationInfo', 'printReplicationInfo', 'printSlaveReplicationInfo', 'printSecondaryReplicationInfo', 'printShardingStatus',
  'setSecondaryOk', 'watch', 'sql', 'checkMetadataConsistency', 'cloneDatabase', 'cloneCollection', 'copyDatabase',
  'getLastError', 'getLastErrorObj', 'getQueryableEncryptionKeyVault',
];
for (const name of UNSUPPORTED) {
  Object.defineProperty(Database.prototype, name, {
    value() {
      throw new MongoshUnimplementedError(`Database.${name}() is not supported in the playground`, CommonErrors.NotImplemented);
    },
    writable: true,
    configurable: true,
    enumerable: false,
  });
}
