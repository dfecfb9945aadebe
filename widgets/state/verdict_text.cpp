// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/verdict_text.h"

#include <QCoreApplication>

namespace dice {

QString verdictText(Verdict verdict) {
    const char* const context = "dice::Verdict";
    switch (verdict) {
    case Verdict::Correct:
        return QCoreApplication::translate(context, "correct");
    case Verdict::Incorrect:
        return QCoreApplication::translate(context, "wrong output");
    case Verdict::CompileError:
        return QCoreApplication::translate(context, "compile error");
    case Verdict::InvalidCandidate:
        return QCoreApplication::translate(context, "not a valid candidate");
    case Verdict::RuntimeError:
        return QCoreApplication::translate(context, "runtime error");
    case Verdict::Timeout:
        return QCoreApplication::translate(context, "timed out");
    case Verdict::Fallback:
        return QCoreApplication::translate(context, "PyTorch fallback");
    case Verdict::NotRun:
        return QCoreApplication::translate(context, "not run");
    }
    return QString();
}

QString verdictText(const QString& code) {
    const auto verdict = parseVerdict(code.toStdString());
    return verdict ? verdictText(*verdict) : code;
}

} // namespace dice
