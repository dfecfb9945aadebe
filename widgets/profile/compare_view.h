// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/cuda/compile_types.h"
#include "core/infill/text_diff.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QPlainTextEdit;
class QTabWidget;
class QTableWidget;

namespace dice {

// Two candidates side by side, as Compiler Explorer users compare two compilers' output: the
// editor's candidate against the pinned baseline of its task, each compiled with the same target
// and options. A diff of their sources, a diff of their PTX, and each kernel's registers, shared
// memory, stack and spills in both, with the change.
class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget* parent = nullptr);

    // The baseline (a run's label, its candidate and its compile), or none.
    void setBaseline(const QString& label, const QString& source, const CompileResult& compiled);
    void clearBaseline();
    // The editor's candidate and its compile.
    void setCurrent(const QString& source, const CompileResult& compiled);

    bool hasBaseline() const { return m_baseline.has_value(); }
    const std::vector<DiffLine>& sourceDiff() const { return m_sourceDiff; }
    const std::vector<DiffLine>& ptxDiff() const { return m_ptxDiff; }
    QTableWidget* resourcesTable() const { return m_resources; }
    QString summary() const;

protected:
    void changeEvent(QEvent* event) override;

private:
    struct Side {
        QString label;
        QString source;
        CompileResult compiled;
    };
    void refresh();
    void retranslate();
    void showDiff(QPlainTextEdit* view, const std::vector<DiffLine>& diff);

    std::optional<Side> m_baseline;
    std::optional<Side> m_current;
    std::vector<DiffLine> m_sourceDiff;
    std::vector<DiffLine> m_ptxDiff;
    QLabel* m_summary;
    QTabWidget* m_tabs;
    QPlainTextEdit* m_source;
    QPlainTextEdit* m_ptx;
    QTableWidget* m_resources;
};

} // namespace dice
