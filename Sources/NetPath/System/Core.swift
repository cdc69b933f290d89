// The system's calls take and give the core's values (Errno, IPAddress).
#if canImport(NetPathCore)
@_exported import NetPathCore
#endif
