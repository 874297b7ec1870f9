// Compiled into every engine build: the engine must never see Qt's headers, so that it
// builds on machines without Qt (LATHE_ENGINE_ONLY) and LibTorch never meets Qt's macros.
#if __has_include(<QtCore/qglobal.h>) || __has_include(<qglobal.h>) || __has_include(<QObject>)
#error "Qt headers are reachable from core/engine; the engine must not depend on Qt"
#endif
