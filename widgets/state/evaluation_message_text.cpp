// SPDX-License-Identifier: GPL-3.0-or-later
#include "widgets/state/evaluation_message_text.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <vector>

namespace dice {

namespace {

// The phase a trial ran in, as the evaluator names it.
QString stageText(const QString& stage) {
    if (stage == QLatin1String("correctness"))
        return QCoreApplication::translate("dice::EvaluationMessage", "correctness");
    if (stage == QLatin1String("small preset"))
        return QCoreApplication::translate("dice::EvaluationMessage", "small preset");
    return stage;
}

// What a trial found wrong, after "STAGE trial N: ".
QString trialFindingText(const QString& finding) {
    static const QRegularExpression outside(
        QStringLiteral(R"(^(?:(output \d+): )?(\d+) of (\d+) elements outside atol ([0-9.]+), )"
                       R"(rtol ([0-9.]+)(?: \((\d+) are NaN: elements never written hold the )"
                       R"(poison\))?$)"));
    if (const auto m = outside.match(finding); m.hasMatch()) {
        QString text = QCoreApplication::translate("dice::EvaluationMessage",
                                                   "%1 of %2 elements outside atol %3, rtol %4")
                           .arg(m.captured(2), m.captured(3), m.captured(4), m.captured(5));
        if (!m.captured(1).isEmpty())
            text = QCoreApplication::translate("dice::EvaluationMessage", "output %1: ")
                       .arg(m.captured(1).mid(7)) +
                   text;
        if (!m.captured(6).isEmpty())
            text +=
                QCoreApplication::translate("dice::EvaluationMessage",
                                            " (%1 are NaN: elements never written hold the poison)")
                    .arg(m.captured(6));
        return text;
    }
    if (finding == QLatin1String("a kernel wrote outside its tensors"))
        return QCoreApplication::translate("dice::EvaluationMessage",
                                           "a kernel wrote outside its tensors");
    if (finding == QLatin1String("the candidate changed its inputs"))
        return QCoreApplication::translate("dice::EvaluationMessage",
                                           "the candidate changed its inputs");
    if (finding == QLatin1String("the output changes with the previous content of memory"))
        return QCoreApplication::translate(
            "dice::EvaluationMessage", "the output changes with the previous content of memory");
    return finding;
}

} // namespace

QString evaluationMessageText(const std::string& message) {
    const QString text = QString::fromStdString(message);
    if (text == QLatin1String("correct"))
        return QCoreApplication::translate("dice::EvaluationMessage", "correct");
    if (text == QLatin1String("computes with PyTorch operators instead of its kernels"))
        return QCoreApplication::translate(
            "dice::EvaluationMessage", "computes with PyTorch operators instead of its kernels");
    if (text == QLatin1String("cancelled before it ran"))
        return QCoreApplication::translate("dice::EvaluationMessage", "cancelled before it ran");
    static const QString dryRun = QStringLiteral(
        " (a dry run on meta tensors found outputs of the reference's shapes and dtypes)");
    if (text == QLatin1String("compiled, not run (compile only): a dry run on meta tensors found "
                              "outputs of the reference's shapes and dtypes"))
        return QCoreApplication::translate(
            "dice::EvaluationMessage",
            "compiled, not run (compile only): a dry run on meta tensors found outputs of "
            "the reference's shapes and dtypes");

    struct Form {
        QRegularExpression pattern;
        QString (*render)(const QRegularExpressionMatch&);
    };
    static const std::vector<Form> forms = {
        {QRegularExpression(QStringLiteral(
             R"(^correct; ([0-9.]+) ms against the reference's ([0-9.]+) ms \(([0-9.]+)x\)$)")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate(
                        "dice::EvaluationMessage",
                        "correct; %1 ms against the reference's %2 ms (%3x)")
                 .arg(m.captured(1), m.captured(2), m.captured(3));
         }},
        {QRegularExpression(QStringLiteral(R"(^(correctness|small preset) trial (\d+): (.*)$)")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage", "%1 trial %2: %3")
                 .arg(stageText(m.captured(1)), m.captured(2), trialFindingText(m.captured(3)));
         }},
        {QRegularExpression(QStringLiteral(R"(^the kernel faulted during (.*?): (CUDA_ERROR.*)$)")),
         [](const QRegularExpressionMatch& m) {
             static const QRegularExpression trial(
                 QStringLiteral(R"(^(correctness|small preset) trial (\d+)$)"));
             const auto t = trial.match(m.captured(1));
             const QString during =
                 t.hasMatch()
                     ? QCoreApplication::translate("dice::EvaluationMessage", "%1 trial %2")
                           .arg(stageText(t.captured(1)), t.captured(2))
                 : m.captured(1) == QLatin1String("the reference")
                     ? QCoreApplication::translate("dice::EvaluationMessage", "the reference")
                     : m.captured(1);
             return QCoreApplication::translate("dice::EvaluationMessage",
                                                "the kernel faulted during %1: %2")
                 .arg(during, m.captured(2));
         }},
        {QRegularExpression(QStringLiteral(R"(^the kernel faulted: (.*)$)")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage", "the kernel faulted: %1")
                 .arg(m.captured(1));
         }},
        {QRegularExpression(QStringLiteral(R"(^the host code failed: (.*)$)")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage",
                                                "the host code failed: %1")
                 .arg(m.captured(1));
         }},
        {QRegularExpression(QStringLiteral(R"(^the evaluation failed: (.*)$)")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage",
                                                "the evaluation failed: %1")
                 .arg(m.captured(1));
         }},
        {QRegularExpression(QStringLiteral(R"re(^no progress during "(.*?)": (.*)$)re")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage",
                                                "no progress during \"%1\": %2")
                 .arg(m.captured(1), m.captured(2));
         }},
        {QRegularExpression(QStringLiteral(R"re(^the worker died during "(.*?)": (.*)$)re")),
         [](const QRegularExpressionMatch& m) {
             return QCoreApplication::translate("dice::EvaluationMessage",
                                                "the worker died during \"%1\": %2")
                 .arg(m.captured(1), m.captured(2));
         }},
    };
    for (const Form& form : forms)
        if (const auto m = form.pattern.match(text); m.hasMatch())
            return form.render(m);
    if (text.startsWith(QLatin1String("compiled, not run: ")) && text.endsWith(dryRun)) {
        const QString reason = text.mid(19, text.size() - 19 - dryRun.size());
        return QCoreApplication::translate(
                   "dice::EvaluationMessage",
                   "compiled, not run: %1 (a dry run on meta tensors found outputs of the "
                   "reference's shapes and dtypes)")
            .arg(reason);
    }
    return text;
}

} // namespace dice
