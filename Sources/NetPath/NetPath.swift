// The path model and the other values of the pure core are NetPath's API: an app imports
// NetPath alone.
@_exported import NetPathCore
