import AASAKit
import CJemalloc
import Foundation

// Placeholder entry until the harness lands below; replaced in the same change.
print("aasa-bench")
