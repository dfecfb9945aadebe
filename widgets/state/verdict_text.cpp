// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/verdict_text.h"

#include <QCoreApplication>

namespace dice {

QString verdictText(Verdict verdict) {
    switch (verdict) {
    case Verdict::Correct:
        return QCoreApplication::translate("dice::Verdict", "correct");
    case Verdict::Incorrect:
        return QCoreApplication::translate("dice::Verdict", "wrong output");
    case Verdict::CompileError:
        return QCoreApplication::translate("dice::Verdict", "compile error");
    case Verdict::InvalidCandidate:
        return QCoreApplication::translate("dice::Verdict", "not a valid candidate");
    case Verdict::RuntimeError:
        return QCoreApplication::translate("dice::Verdict", "runtime error");
    case Verdict::Timeout:
        return QCoreApplication::translate("dice::Verdict", "timed out");
    case Verdict::Fallback:
        return QCoreApplication::translate("dice::Verdict", "PyTorch fallback");
    case Verdict::NotRun:
        return QCoreApplication::translate("dice::Verdict", "not run");
    }
    return QString();
}

QString verdictText(const QString& code) {
    const auto verdict = parseVerdict(code.toStdString());
    return verdict ? verdictText(*verdict) : code;
}

} // namespace dice
