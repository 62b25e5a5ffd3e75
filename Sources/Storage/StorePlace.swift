import FilePaths
import Foundation

/// Where a database file is, or is to be made: checked before SQLite opens anything.
///
/// A path that cannot hold a database (a device, a pipe, a folder, a link to nothing, a new name in a
/// folder that cannot be written) is refused with the reason before any command does its work, and
/// without SQLite leaving a journal beside it. A store that is only read is opened so that it leaves
/// no -wal or -shm file behind, even where it cannot be written.
struct StorePlace {
    let path: String
    /// The folder the file is in ("." for a bare name).
    let folder: String
    /// False when the file is to be made.
    let exists: Bool
    /// The folders a new database needs that do not exist yet, the deepest first.
    let missingFolders: [String]

    /// Checks `path` for a store that is read (`create` false: it must exist) or written (it may be new).
    init(path: String, create: Bool) throws(StoreError) {
        guard !path.isEmpty else { throw StoreError(.invalid, "the database path is empty") }
        self.path = path
        folder = Path.folder(of: path)
        var link = stat()
        if lstat(path, &link) == 0 {
            var target = stat()
            guard stat(path, &target) == 0 else {
                throw StoreError(.io, "\(Path.shown(path)): a symbolic link to a file that does not exist, not a database file")
            }
            let kind = target.st_mode & S_IFMT
            if kind == S_IFDIR { throw StoreError(.io, "\(Path.shown(path)): is a directory, not a database file") }
            guard kind == S_IFREG else {
                throw StoreError(.io, "\(Path.shown(path)): not a regular file (\(Self.describe(kind))); the database must be a file")
            }
            if create && access(folder, W_OK | X_OK) != 0 {
                throw StoreError(.io, "\(Path.shown(path)): cannot be written: folder \(folder) is read-only to this user "
                                 + "(the database keeps its journal beside it)")
            }
            (exists, missingFolders) = (true, [])
            return
        }
        guard errno == ENOENT || errno == ENOTDIR else {
            throw StoreError(.io, "\(Path.shown(path)): \(String(cString: strerror(errno)))")
        }
        var missing: [String] = []
        var nearest = folder
        while lstat(nearest, &link) != 0 && (errno == ENOENT || errno == ENOTDIR) && nearest != "." && nearest != "/" {
            missing.append(nearest)
            nearest = Path.folder(of: nearest)
        }
        guard create else {
            let why = missing.isEmpty ? "" : " (folder \(missing.last ?? folder) does not exist)"
            throw StoreError(.notFound, "\(Path.shown(path)): no such database\(why)")
        }
        var info = stat()
        guard stat(nearest, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw StoreError(.io, "\(Path.shown(path)): cannot be created: \(nearest) is not a folder")
        }
        guard access(nearest, W_OK | X_OK) == 0 else {
            throw StoreError(.io, "\(Path.shown(path)): cannot be created: folder \(nearest) is read-only to this user")
        }
        (exists, missingFolders) = (false, missing)
    }

    /// Opens the existing database for reading.
    ///
    /// SQLite removes a WAL database's -wal and -shm files when the last connection that can write
    /// closes; a read-only connection cannot, and leaves them. So where this user can write the file
    /// and its folder, the connection is opened for writing (the store then refuses every write but
    /// a schema upgrade, with `query_only`); elsewhere it is read-only, and, unless a writer's -wal
    /// file is there to be read, immutable: SQLite then reads the file as it is, without making a
    /// -wal or -shm file, which a read-only folder would not let it make.
    func openForReading() throws(StoreError) -> Database {
        if access(path, R_OK | W_OK) == 0 && access(folder, W_OK | X_OK) == 0 {
            return try Database(path: path, create: false)
        }
        let writerWasHere = access(path + "-wal", F_OK) == 0
        return try Database(path: path, create: false, readOnly: true, immutable: !writerWasHere)
    }

    /// Makes the new database's file, and returns true, unless another process made it first.
    func createFile() throws(StoreError) -> Bool {
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        if fd >= 0 {
            close(fd)
            return true
        }
        if errno == EEXIST { return false }
        throw StoreError(.io, "\(Path.shown(path)): cannot be created: \(String(cString: strerror(errno)))")
    }

    /// Removes a database this process made and could not finish: the file, its journals, and the
    /// folders made for it when they are left empty.
    func discard() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        for folder in missingFolders { rmdir(folder) }
    }

    /// True when another process has the database open: a connection to a WAL database holds a
    /// shared lock on SQLite's lock bytes of the file (at 1 GiB) for as long as it is open. Opening
    /// and closing the file here drops this process's own locks on it, so it is asked only once this
    /// process's connection is closed.
    func isOpenElsewhere() -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0x4000_0000
        lock.l_len = 512
        guard fcntl(fd, F_GETLK, &lock) == 0 else { return true }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A kind of file other than a regular file or a folder, in words.
    private static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a named pipe"
        case S_IFSOCK: return "a socket"
        default: return "not a file"
        }
    }
}
