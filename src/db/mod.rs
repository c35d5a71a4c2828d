//! Databases and collections in memory, CRUD and the server's command protocol. STUB: the
//! engine-core issue replaces this body.
